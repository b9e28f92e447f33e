package sot

import (
	"sync"

	"github.com/ipsync/ipsync/internal/resource"
)

// Learnt are the ids of ipsync's own objects that writes refer to
// (namespaces, VLAN groups, VLANs), by key: learnt by reads and by the
// writes of an Apply, so that a VLAN's group or a prefix's VLAN is
// written by id. It is safe for concurrent use; the zero value is empty.
type Learnt[ID any] struct {
	mu  sync.Mutex
	ids map[resource.Key]ID
}

// Learn keeps id as k's.
func (l *Learnt[ID]) Learn(k resource.Key, id ID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ids == nil {
		l.ids = map[resource.Key]ID{}
	}
	l.ids[k] = id
}

// Forget drops k's id: deleted, or renumbered to another key.
func (l *Learnt[ID]) Forget(k resource.Key) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.ids, k)
}

// ID is k's id, if learnt.
func (l *Learnt[ID]) ID(k resource.Key) (ID, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	id, ok := l.ids[k]
	return id, ok
}
