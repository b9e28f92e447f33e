// Package memory is a target that keeps objects in process memory. It backs
// `ipsync plan --target memory` (a plan against an empty target shows what a
// first run would create) and the tests of code that drives targets, as a
// reconcile.Target through reconcile.Stateless.
package memory

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// Store holds objects by identity. It is safe for concurrent use.
type Store struct {
	mu      sync.Mutex
	objs    map[resource.Identity]resource.Object
	order   []resource.Identity
	version int
}

// New returns a store holding copies of objs.
func New(objs ...resource.Object) *Store {
	s := &Store{objs: map[resource.Identity]resource.Object{}}
	for _, o := range objs {
		s.put(resource.Clone(o))
	}
	return s
}

func (s *Store) put(o resource.Object) {
	id := o.Identity()
	if _, ok := s.objs[id]; !ok {
		s.order = append(s.order, id)
	}
	s.version++
	m := o.Meta()
	if m.ID == "" {
		m.ID = "mem-" + strconv.Itoa(s.version)
	}
	m.Version = strconv.Itoa(s.version)
	m.Source = resource.Source{}
	s.objs[id] = o
}

// List returns copies of every object, in the order they were first stored.
func (s *Store) List(context.Context) ([]resource.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]resource.Object, 0, len(s.objs))
	seen := make(map[resource.Identity]bool, len(s.objs))
	for _, id := range s.order {
		// An identity deleted (or renumbered away) and stored again is
		// in order twice.
		if o, ok := s.objs[id]; ok && !seen[id] {
			seen[id] = true
			out = append(out, resource.Clone(o))
		}
	}
	return out, nil
}

// Server is what messages call the store.
func (s *Store) Server() string { return "the in-memory target" }

// Apply performs the writing changes and returns how many it wrote. Like a
// real target it refuses to create what exists and to change what is gone.
func (s *Store) Apply(_ context.Context, changes []plan.Change) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	writes := 0
	for _, c := range changes {
		if !c.Action.Writes() {
			continue
		}
		// Updates, adopts and deletes find the object by its current
		// identity: an update may renumber it (a VLAN's vid). The store
		// keeps no unique keys besides identity, so it needs no interim
		// values.
		obj := c.Current
		if c.Action == plan.Create {
			obj = c.Desired
		}
		id := obj.Identity()
		existing, exists := s.objs[id]
		switch {
		case c.Action == plan.Create && exists:
			return writes, fmt.Errorf("create %s: already exists", c.Key)
		case c.Action != plan.Create && !exists:
			return writes, fmt.Errorf("%s %s: not found", c.Action, c.Key)
		}
		switch c.Action {
		case plan.Create:
			o := resource.Clone(c.Desired)
			o.Meta().ID = ""
			s.put(o)
		case plan.Update, plan.Adopt:
			o := resource.Clone(c.Desired)
			o.Meta().ID = existing.Meta().ID
			if o.Identity() != id {
				delete(s.objs, id)
				s.follow(existing.Key(), o.Key())
			}
			s.put(o)
		case plan.Delete:
			delete(s.objs, id)
		}
		writes++
	}
	return writes, nil
}

// follow points what referred to a VLAN renumbered from old to new at
// it again: a real target refers by id, which a renumber keeps.
func (s *Store) follow(old, new resource.Key) {
	if old.Kind != resource.KindVLAN {
		return
	}
	for _, o := range s.objs {
		if p, ok := o.(*resource.Prefix); ok && p.VLAN == old.Name {
			p.VLAN = new.Name
		}
	}
}

// Put stores a copy of o as if someone else had written it (tests).
func (s *Store) Put(o resource.Object) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.put(resource.Clone(o))
}
