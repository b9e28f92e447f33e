package events

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/clock/clocktest"
)

type coalescer struct {
	t     *testing.T
	clock *clocktest.Fake
	in    chan Event
	out   chan Batch
	done  chan struct{}
}

func startCoalesce(t *testing.T, ctx context.Context, window, maxWait time.Duration) *coalescer {
	t.Helper()
	c := &coalescer{t: t, clock: clocktest.New(clocktest.Start), in: make(chan Event), out: make(chan Batch), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		coalesce(ctx, c.clock, c.in, window, maxWait, c.out)
	}()
	return c
}

// send hands ev over and, when armed, waits until the coalescer has set its
// timer for it, so that moving the clock afterwards is seen.
func (c *coalescer) send(ev Event, armed bool) time.Duration {
	c.t.Helper()
	c.in <- ev
	if !armed {
		return 0
	}
	select {
	case d := <-c.clock.Armed():
		return d
	case <-time.After(10 * time.Second):
		c.t.Fatal("coalescer set no timer")
		return 0
	}
}

func (c *coalescer) batch() Batch {
	c.t.Helper()
	select {
	case b := <-c.out:
		return b
	case <-time.After(10 * time.Second):
		c.t.Fatal("no batch")
		return Batch{}
	}
}

func at(sec int) time.Time { return time.Date(2025, 3, 14, 9, 0, sec, 0, time.UTC) }

func TestCoalesceBurst(t *testing.T) {
	c := startCoalesce(t, t.Context(), 2*time.Second, time.Minute)
	c.send(Event{Resource: Port, IDs: []string{"p2"}, NetworkIDs: []string{"n1"}, Timestamp: at(5)}, true)
	c.send(Event{Resource: Subnet, IDs: []string{"s1"}, NetworkIDs: []string{"n2"}, Timestamp: at(3)}, true)
	c.send(Event{Resource: Network, IDs: []string{"n3"}, NetworkIDs: []string{"n3"}, Timestamp: at(4)}, true)
	c.send(Event{Resource: Port, IDs: []string{"p1", "p2"}, NetworkIDs: []string{"n1"}, Timestamp: at(6)}, true)
	c.send(Event{Resource: Segment, IDs: []string{"g1"}, NetworkIDs: []string{"n2"}}, true)
	c.clock.Advance(2 * time.Second)
	got := c.batch()
	want := Batch{
		NetworkIDs: []string{"n1", "n2", "n3"},
		Events:     5,
		Oldest:     at(3),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("batch = %+v, want %+v", got, want)
	}
}

func TestCoalesceWindowRestartsAndMaxWaitCaps(t *testing.T) {
	c := startCoalesce(t, t.Context(), 10*time.Second, 25*time.Second)
	steps := []struct {
		id        string
		wantTimer time.Duration
	}{
		{"n1", 10 * time.Second}, // t=0
		{"n2", 10 * time.Second}, // t=9: quiet window starts again
		{"n3", 7 * time.Second},  // t=18: only 7s left of maxWait
	}
	for i, s := range steps {
		if i > 0 {
			c.clock.Advance(9 * time.Second)
		}
		if got := c.send(Event{Resource: Network, IDs: []string{s.id}, NetworkIDs: []string{s.id}}, true); got != s.wantTimer {
			t.Errorf("after event %d the batch waits %v, want %v", i+1, got, s.wantTimer)
		}
	}
	c.clock.Advance(7 * time.Second)
	if got, want := c.batch().NetworkIDs, []string{"n1", "n2", "n3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("first batch NetworkIDs = %v, want %v", got, want)
	}

	// The next event starts a fresh batch with the full windows again.
	if got := c.send(Event{Resource: Network, IDs: []string{"n4"}, NetworkIDs: []string{"n4"}}, true); got != 10*time.Second {
		t.Errorf("new batch waits %v, want %v", got, 10*time.Second)
	}
	c.clock.Advance(10 * time.Second)
	if got := c.batch(); got.Events != 1 || !reflect.DeepEqual(got.NetworkIDs, []string{"n4"}) {
		t.Errorf("second batch = %+v, want only n4", got)
	}
}

// With no window every batch is due at once, so what queues up while out is
// not read must land in one batch.
func TestCoalesceAbsorbsWhileOutIsBusy(t *testing.T) {
	c := startCoalesce(t, t.Context(), 0, 0)
	for i := range 50 {
		c.send(Event{Resource: Port, IDs: []string{"p" + string(rune('a'+i%26))}, NetworkIDs: []string{"n1"}}, false)
	}
	got := c.batch()
	if got.Events != 50 || got.Unattributed || !reflect.DeepEqual(got.NetworkIDs, []string{"n1"}) {
		t.Errorf("batch = %d events, networks %v, unattributed %v; want 50, [n1], false", got.Events, got.NetworkIDs, got.Unattributed)
	}
}

func TestCoalesceUnattributedAndRanges(t *testing.T) {
	tests := []struct {
		name   string
		events []Event
		want   Batch
	}{
		{
			name:   "port delete without network",
			events: []Event{{Resource: Port, Action: Delete, IDs: []string{"p1"}}},
			want:   Batch{Unattributed: true, Events: 1},
		},
		{
			name:   "payload without ids",
			events: []Event{{Resource: Subnet, Action: Create}},
			want:   Batch{Unattributed: true, Events: 1},
		},
		{
			name:   "the consumer started consuming",
			events: []Event{{Type: Resync, Resource: Resync}},
			want:   Batch{Unattributed: true, Events: 1},
		},
		{
			name:   "segment range",
			events: []Event{{Resource: NetworkSegmentRange, Action: Update, IDs: []string{"r1"}}},
			want:   Batch{RangeChanged: true, Events: 1},
		},
		{
			name: "unattributed among attributed",
			events: []Event{
				{Resource: Network, IDs: []string{"n1"}, NetworkIDs: []string{"n1"}},
				{Resource: Segment, IDs: []string{"g1"}},
			},
			want: Batch{NetworkIDs: []string{"n1"}, Unattributed: true, Events: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startCoalesce(t, t.Context(), 0, 0)
			for _, ev := range tt.events {
				c.send(ev, false)
			}
			if got := c.batch(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("batch = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// Past maxBatchIDs networks the batch asks for a whole read of Neutron;
// ports, however many, count as the networks they belong to.
func TestCoalesceOverflow(t *testing.T) {
	many := func(prefix string, n int) []string {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = prefix + strconv.Itoa(i)
		}
		return ids
	}
	tests := []struct {
		name   string
		events []Event
		want   Batch
	}{
		{
			name: "ports of one network",
			events: []Event{
				{Resource: Port, IDs: many("p", maxBatchIDs+1), NetworkIDs: []string{"n1"}},
				{Resource: Port, IDs: []string{"q"}, NetworkIDs: []string{"n2"}},
			},
			want: Batch{NetworkIDs: []string{"n1", "n2"}, Events: 2},
		},
		{
			name: "networks past the cap",
			events: []Event{
				{Resource: Network, IDs: many("n", maxBatchIDs), NetworkIDs: many("n", maxBatchIDs)},
				{Resource: Network, IDs: []string{"x"}, NetworkIDs: []string{"x"}},
				{Resource: Network, IDs: []string{"y"}, NetworkIDs: []string{"y"}},
			},
			want: Batch{Unattributed: true, Events: 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startCoalesce(t, t.Context(), 0, 0)
			for _, ev := range tt.events {
				c.send(ev, false)
			}
			if got := c.batch(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("batch = unattributed %v, %d events, %d networks; want %+v", got.Unattributed, got.Events, len(got.NetworkIDs), tt.want)
			}
		})
	}
}

func TestCoalesceClosedInputFlushes(t *testing.T) {
	c := startCoalesce(t, t.Context(), time.Hour, time.Hour)
	c.send(Event{Resource: Network, IDs: []string{"n1"}, NetworkIDs: []string{"n1"}}, true)
	close(c.in)
	if got := c.batch(); got.Events != 1 {
		t.Errorf("flushed batch has %d events, want 1", got.Events)
	}
	<-c.done
}

func TestCoalesceStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	c := startCoalesce(t, ctx, time.Hour, time.Hour)
	c.send(Event{Resource: Network, IDs: []string{"n1"}, NetworkIDs: []string{"n1"}}, true)
	cancel()
	<-c.done
	select {
	case b := <-c.out:
		t.Errorf("batch %+v sent after cancel", b)
	default:
	}
}

// The exported function on the wall clock: however the events are split
// into batches, together they carry every network once.
func TestCoalesceRealClock(t *testing.T) {
	in, out := make(chan Event, 100), make(chan Batch)
	for i := range 100 {
		in <- Event{Resource: Port, IDs: []string{"p" + strconv.Itoa(i)}, NetworkIDs: []string{strconv.Itoa(i)}}
	}
	close(in)
	go Coalesce(t.Context(), in, time.Millisecond, 10*time.Millisecond, out)
	var ports []string
	events := 0
	for events < 100 {
		var b Batch
		select {
		case b = <-out:
		case <-time.After(10 * time.Second):
			t.Fatalf("stuck after %d of 100 events", events)
		}
		events += b.Events
		ports = append(ports, b.NetworkIDs...)
	}
	slices.Sort(ports)
	if len(slices.Compact(ports)) != 100 || events != 100 {
		t.Errorf("batches carried %d events and %d distinct networks, want 100 and 100", events, len(ports))
	}
}
