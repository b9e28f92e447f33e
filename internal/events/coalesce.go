package events

import (
	"context"
	"slices"
	"time"

	"github.com/ipsync/ipsync/internal/clock"
)

// Batch is what a burst of events asks the agent to look at.
type Batch struct {
	// NetworkIDs are the networks touched, directly or as the parent of a
	// port, subnet or segment, sorted. A network is all a sync can be
	// narrowed to: it reads a network with its ports, subnets and segments.
	NetworkIDs []string
	// RangeChanged is set when a network segment range changed.
	RangeChanged bool
	// Unattributed says Neutron changed in ways no network list names:
	// an event named no network (a router's gateway set or cleared, a
	// port delete whose payload holds only the port's id), the consumer
	// started consuming (Resync), or the batch outgrew maxBatchIDs
	// networks (its list is then dropped). Neutron must be read whole.
	Unattributed bool
	// Events is how many notifications were coalesced.
	Events int
	// Oldest is when the oldest of them was emitted, for lag metrics.
	Oldest time.Time
}

// maxBatchIDs bounds the networks of a batch that keeps growing while the
// agent is busy: past it a whole read of Neutron is cheaper than reading
// every network by id. Only networks count: a thousand ports of one
// network are one network to read.
const maxBatchIDs = 10_000

// Coalesce collapses bursts of events from in into batches on out. A batch
// is sent once no event arrived for window, or maxWait after its first event
// while events keep arriving (maxWait <= 0 means window). While out is not
// ready the batch keeps absorbing events, so a slow agent gets fewer, larger
// batches and never stalls the consumer. When in is closed, the pending batch
// is sent and Coalesce returns; when ctx is done it returns at once, dropping
// it. out is not closed.
func Coalesce(ctx context.Context, in <-chan Event, window, maxWait time.Duration, out chan<- Batch) {
	coalesce(ctx, clock.Real(), in, window, maxWait, out)
}

func coalesce(ctx context.Context, clk clock.Clock, in <-chan Event, window, maxWait time.Duration, out chan<- Batch) {
	if maxWait <= 0 {
		maxWait = window
	}
	var (
		pending *collector
		first   time.Time        // when pending got its first event
		timer   clock.Timer      // runs while pending waits for quiet
		due     <-chan time.Time // timer's channel, nil when no timer runs
		send    chan<- Batch     // out once pending may go, else nil
		ready   Batch            // pending as it will be sent
		stale   bool             // pending changed since ready was built
		closing bool             // in is closed: send pending, then return
	)
	stopTimer := func() {
		if timer != nil {
			timer.Stop()
			timer, due = nil, nil
		}
	}
	defer stopTimer()
	for {
		if send != nil && stale {
			ready, stale = pending.batch(), false
		}
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-in:
			if !ok {
				if pending == nil {
					return
				}
				in, closing = nil, true
				stopTimer()
				send, stale = out, true
				continue
			}
			if pending == nil {
				pending, first = newCollector(), clk.Now()
			}
			pending.add(ev)
			stale = true
			if send != nil {
				continue // already due; it goes out as soon as out takes it
			}
			stopTimer()
			wait := min(window, maxWait-clk.Now().Sub(first))
			if wait <= 0 {
				send = out
				continue
			}
			timer = clk.NewTimer(wait)
			due = timer.C()
		case <-due:
			timer, due = nil, nil
			send = out
		case send <- ready:
			pending, send, ready = nil, nil, Batch{}
			if closing {
				return
			}
		}
	}
}

// collector accumulates events into a Batch.
type collector struct {
	networks                       map[string]struct{}
	ranges, unattributed, overflow bool
	events                         int
	oldest                         time.Time
}

func newCollector() *collector {
	return &collector{networks: map[string]struct{}{}}
}

func (c *collector) add(ev Event) {
	c.events++
	if !ev.Timestamp.IsZero() && (c.oldest.IsZero() || ev.Timestamp.Before(c.oldest)) {
		c.oldest = ev.Timestamp
	}
	if !ev.attributed() {
		c.unattributed = true
	}
	if ev.Resource == NetworkSegmentRange {
		c.ranges = true
	}
	if c.overflow {
		return
	}
	for _, id := range ev.NetworkIDs {
		c.networks[id] = struct{}{}
	}
	if len(c.networks) > maxBatchIDs {
		c.overflow, c.unattributed = true, true
		c.networks = nil
	}
}

func (c *collector) batch() Batch {
	return Batch{
		NetworkIDs:   sortedKeys(c.networks),
		RangeChanged: c.ranges,
		Unattributed: c.unattributed,
		Events:       c.events,
		Oldest:       c.oldest,
	}
}

func sortedKeys(m map[string]struct{}) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
