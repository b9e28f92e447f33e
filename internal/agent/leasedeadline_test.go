package agent_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/agent"
	"github.com/ipsync/ipsync/internal/clock/clocktest"
)

// slowLease is a lease behind a Nautobot that stops answering: once hang is
// set, every request waits until its context ends, as the client's retries
// and a long Retry-After would make it wait.
type slowLease struct {
	*memLease
	hang    atomic.Bool
	entered chan struct{}
	ended   chan error
}

func newSlowLease(l *memLease) *slowLease {
	return &slowLease{memLease: l, entered: make(chan struct{}, 16), ended: make(chan error, 16)}
}

func (l *slowLease) Acquire(ctx context.Context) (bool, error) {
	if !l.hang.Load() {
		return l.memLease.Acquire(ctx)
	}
	l.entered <- struct{}{}
	<-ctx.Done()
	l.ended <- ctx.Err()
	return false, ctx.Err()
}

// waitTimer waits until the agent waits for a timer due at.
func waitTimer(t *testing.T, clock *clocktest.Fake, at time.Time) {
	t.Helper()
	eventually(t, "a timer at "+at.Format(time.TimeOnly), func() bool { return slices.ContainsFunc(clock.Deadlines(), at.Equal) })
}

func waitSignal[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(hangGuard):
		t.Fatalf("gave up waiting for %s", what)
		var zero T
		return zero
	}
}

// A renewal is bounded by the renew interval however long the lease's
// server takes: the client's retries cannot hold it past its deadline.
func TestLeaseRenewalHasDeadline(t *testing.T) {
	clock := newFakeClock()
	t0 := clock.Now()
	lease := newSlowLease(newTable(clock).Lease("neutron:"+site, "agent-1"))
	h := startWith(t, clock, lease)
	h.next().answer(agent.Outcome{}, nil)
	h.runs(1)

	lease.hang.Store(true)
	waitTimer(t, clock, t0.Add(30*time.Second))
	clock.Advance(30 * time.Second) // the renewal is due
	waitSignal(t, "the renewal", lease.entered)
	waitTimer(t, clock, t0.Add(60*time.Second))
	clock.Advance(30 * time.Second) // and past its deadline
	if err := waitSignal(t, "the renewal to be cancelled", lease.ended); !errors.Is(err, context.Canceled) {
		t.Errorf("renewal ended with %v, want context.Canceled at its deadline", err)
	}
	c := h.waitCondition(agent.CondLease, false)
	if want := "renew lease for " + site; len(c.Message) < len(want) || c.Message[:len(want)] != want {
		t.Errorf("lease condition = %q, want it to start with %q", c.Message, want)
	}
}

// When the lease cannot be confirmed, the running sync is cancelled before
// the lease expires, and only then may another agent take it and write:
// never two writers at once.
func TestLeaseUnconfirmedCancelsSyncBeforeExpiry(t *testing.T) {
	clock := newFakeClock()
	t0 := clock.Now()
	table := newTable(clock) // TTL 2m, renewals every 30s
	lease := newSlowLease(table.Lease("neutron:"+site, "agent-1"))
	first := startWith(t, clock, lease)
	writing := first.next() // the first sync, confirmed at t0; it keeps writing

	lease.hang.Store(true)
	// Renewals at +30s and +60s hang and are cancelled at their deadlines;
	// writes must stop at +90s, a renew interval before the expiry at +2m.
	for i, at := range []time.Duration{30 * time.Second, 60 * time.Second, 90 * time.Second} {
		waitTimer(t, clock, t0.Add(at))
		if writing.ctx.Err() != nil {
			t.Fatalf("sync cancelled at +%v, before the lease went unconfirmed", at-30*time.Second)
		}
		clock.Advance(30 * time.Second)
		if i < 2 {
			waitSignal(t, "a renewal", lease.entered)
		}
	}
	eventually(t, "the unconfirmed writer's sync to be cancelled", func() bool { return writing.ctx.Err() != nil })
	if got := table.Holder("neutron:" + site); got != "agent-1" {
		t.Fatalf("holder when the writes stopped = %q, want agent-1 (the lease has not expired yet)", got)
	}
	first.waitCondition(agent.CondLease, false)
	if got := first.runs(1)[0]; got.Result != "canceled" {
		t.Errorf("first agent's run = %+v, want canceled", got)
	}

	// Only after the expiry may a standby write.
	second := start(t, clock, table, "agent-2")
	second.waitCondition(agent.CondLease, false)
	if c := second.next(); !c.trig.Standby {
		t.Fatalf("second agent synced (trigger %+v) as the holder before the lease expired", c.trig)
	} else {
		c.answer(agent.Outcome{}, nil)
	}
	clock.Advance(30 * time.Second) // +2m: expired
	c := second.next()
	if c.trig.Standby || !c.trig.Full {
		t.Errorf("takeover trigger = %+v, want a full sync as the holder", c.trig)
	}
	c.answer(agent.Outcome{}, nil)
	second.waitCondition(agent.CondLease, true)
}
