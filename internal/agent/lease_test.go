package agent_test

import (
	"context"
	"testing"
	"time"
)

func TestMemLease(t *testing.T) {
	clock := newFakeClock()
	table := newLeaseTable(clock, time.Minute)
	leases := map[string]*memLease{
		"a": table.Lease("neutron:a11", "a"),
		"b": table.Lease("neutron:a11", "b"),
		"c": table.Lease("neutron:b22", "c"), // another owner: its own lease
	}
	steps := []struct {
		advance time.Duration
		who, op string // op: acquire, release
		want    bool   // acquire's result
		holder  string // of neutron:a11 afterwards
	}{
		{0, "a", "acquire", true, "a"},
		{0, "b", "acquire", false, "a"},
		{0, "c", "acquire", true, "a"},
		{50 * time.Second, "a", "acquire", true, "a"}, // renewal moves expiry on
		{50 * time.Second, "b", "acquire", false, "a"},
		{0, "b", "release", false, "a"},               // not b's to release
		{61 * time.Second, "b", "acquire", true, "b"}, // a stopped renewing: expired
		{0, "a", "acquire", false, "b"},
		{0, "b", "release", false, ""},
		{0, "a", "acquire", true, "a"},
		{2 * time.Minute, "a", "acquire", true, "a"}, // expired but nobody took it: still a's
	}
	ctx := context.Background()
	for i, s := range steps {
		clock.Advance(s.advance)
		l := leases[s.who]
		switch s.op {
		case "acquire":
			got, err := l.Acquire(ctx)
			if err != nil || got != s.want {
				t.Fatalf("step %d: %s.Acquire() = %v, %v, want %v, nil", i, s.who, got, err, s.want)
			}
		case "release":
			if err := l.Release(ctx); err != nil {
				t.Fatalf("step %d: %s.Release() = %v, want nil", i, s.who, err)
			}
		}
		if got := table.Holder("neutron:a11"); got != s.holder {
			t.Fatalf("step %d (%s %s): holder = %q, want %q", i, s.who, s.op, got, s.holder)
		}
	}
}

func TestMemLeaseHonoursContext(t *testing.T) {
	clock := newFakeClock()
	l := newLeaseTable(clock, time.Minute).Lease("neutron:a11", "a")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if ok, err := l.Acquire(ctx); ok || err == nil {
		t.Errorf("Acquire(cancelled) = %v, %v, want false and an error", ok, err)
	}
}
