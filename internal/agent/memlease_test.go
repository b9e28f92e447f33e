package agent_test

import (
	"context"
	"sync"
	"time"

	"github.com/ipsync/ipsync/internal/clock"
)

// leaseTable is an in-memory lease store shared by agents in one process,
// with the expiry real leases have: a holder that stops renewing loses the
// lease to the next agent that asks after ttl.
type leaseTable struct {
	clock clock.Clock
	ttl   time.Duration

	mu     sync.Mutex
	leases map[string]memEntry
}

type memEntry struct {
	holder  string
	expires time.Time
}

// newLeaseTable makes a table whose leases last ttl after each renewal.
func newLeaseTable(clock clock.Clock, ttl time.Duration) *leaseTable {
	return &leaseTable{clock: clock, ttl: ttl, leases: map[string]memEntry{}}
}

// Lease is holder's handle on the lease for name (an owner such as
// "neutron:<site>").
func (t *leaseTable) Lease(name, holder string) *memLease {
	return &memLease{table: t, name: name, holder: holder}
}

// Holder is who holds the lease for name, "" when nobody does or it expired.
func (t *leaseTable) Holder(name string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.leases[name]
	if !ok || !t.clock.Now().Before(e.expires) {
		return ""
	}
	return e.holder
}

// memLease is one holder's handle on a leaseTable lease.
type memLease struct {
	table        *leaseTable
	name, holder string
}

// Acquire takes the lease if it is free, expired or already ours.
func (l *memLease) Acquire(ctx context.Context) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	t := l.table
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.clock.Now()
	if e, ok := t.leases[l.name]; ok && e.holder != l.holder && now.Before(e.expires) {
		return false, nil
	}
	t.leases[l.name] = memEntry{holder: l.holder, expires: now.Add(t.ttl)}
	return true, nil
}

// Release frees the lease if this holder has it; another's lease is left
// alone.
func (l *memLease) Release(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t := l.table
	t.mu.Lock()
	defer t.mu.Unlock()
	if e, ok := t.leases[l.name]; ok && e.holder == l.holder {
		delete(t.leases, l.name)
	}
	return nil
}
