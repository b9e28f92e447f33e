package agent

import (
	"context"
	"sync"
	"time"
)

// Lease makes one agent the only writer for an owner.
type Lease interface {
	// Acquire tries once and reports whether this agent holds the lease
	// now; it renews the lease if already held.
	Acquire(ctx context.Context) (bool, error)
	// Release gives the lease up if this agent holds it.
	Release(ctx context.Context) error
}

// LeaseTable is an in-memory lease store shared by agents in one process,
// with the expiry real leases have: a holder that stops renewing loses the
// lease to the next agent that asks after ttl.
type LeaseTable struct {
	clock Clock
	ttl   time.Duration

	mu     sync.Mutex
	leases map[string]memEntry
}

type memEntry struct {
	holder  string
	expires time.Time
}

// NewLeaseTable makes a table whose leases last ttl after each renewal.
func NewLeaseTable(clock Clock, ttl time.Duration) *LeaseTable {
	return &LeaseTable{clock: clock, ttl: ttl, leases: map[string]memEntry{}}
}

// Lease is holder's handle on the lease for name (an owner such as
// "neutron:<site>").
func (t *LeaseTable) Lease(name, holder string) *MemLease {
	return &MemLease{table: t, name: name, holder: holder}
}

// Holder is who holds the lease for name, "" when nobody does or it expired.
func (t *LeaseTable) Holder(name string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.leases[name]
	if !ok || !t.clock.Now().Before(e.expires) {
		return ""
	}
	return e.holder
}

// MemLease is one holder's handle on a LeaseTable lease.
type MemLease struct {
	table        *LeaseTable
	name, holder string
}

// Acquire takes the lease if it is free, expired or already ours.
func (l *MemLease) Acquire(ctx context.Context) (bool, error) {
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
func (l *MemLease) Release(ctx context.Context) error {
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
