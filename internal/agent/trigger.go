package agent

import (
	"fmt"
	"time"
)

// Trigger narrows a sync to what Neutron notifications said changed. A nil
// *Trigger, or one with Full set, asks for a full reconcile.
type Trigger struct {
	NetworkIDs, SubnetIDs, PortIDs, SegmentIDs []string
	RangesChanged                              bool
	Full                                       bool
	// Sweep asks for a full reconcile that reads both sides whole instead
	// of what changed since the last one; it implies Full.
	Sweep bool
	// Events is how many notifications were coalesced into the trigger.
	Events int
	// Oldest is when the oldest coalesced event was emitted, for lag metrics.
	Oldest time.Time
}

// maxPendingIDs bounds what queues up while syncs cannot run (a side is
// down, the lease is elsewhere): past it a full reconcile is cheaper than
// remembering every id.
const maxPendingIDs = 10_000

// merge folds b into a, either may be nil. A full trigger wins: its id lists
// are dropped because a full reconcile covers them.
func merge(a, b *Trigger) *Trigger {
	if a == nil && b == nil {
		return nil
	}
	out := &Trigger{}
	for _, t := range []*Trigger{a, b} {
		if t == nil {
			continue
		}
		out.NetworkIDs = union(out.NetworkIDs, t.NetworkIDs)
		out.SubnetIDs = union(out.SubnetIDs, t.SubnetIDs)
		out.PortIDs = union(out.PortIDs, t.PortIDs)
		out.SegmentIDs = union(out.SegmentIDs, t.SegmentIDs)
		out.RangesChanged = out.RangesChanged || t.RangesChanged
		out.Full = out.Full || t.Full || t.Sweep
		out.Sweep = out.Sweep || t.Sweep
		out.Events += t.Events
		if !t.Oldest.IsZero() && (out.Oldest.IsZero() || t.Oldest.Before(out.Oldest)) {
			out.Oldest = t.Oldest
		}
	}
	if len(out.NetworkIDs)+len(out.SubnetIDs)+len(out.PortIDs)+len(out.SegmentIDs) > maxPendingIDs {
		out.Full = true
	}
	if out.Full {
		out.NetworkIDs, out.SubnetIDs, out.PortIDs, out.SegmentIDs = nil, nil, nil, nil
		out.RangesChanged = false
	}
	return out
}

// union appends the ids of b that a lacks, keeping a's order. It only
// appends to a, which merge always owns, never to b.
func union(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	seen := make(map[string]struct{}, len(a)+len(b))
	for _, id := range a {
		seen[id] = struct{}{}
	}
	for _, id := range b {
		if _, ok := seen[id]; !ok {
			seen[id] = struct{}{}
			a = append(a, id)
		}
	}
	return a
}

// kindOf is the trigger's kind as metrics label it.
func kindOf(t Trigger) string {
	switch {
	case t.Sweep:
		return "sweep"
	case t.Full:
		return "full"
	}
	return "events"
}

// describe is the trigger as the status page shows it.
func describe(t Trigger) string {
	switch {
	case t.Sweep && t.Events == 0:
		return "sweep"
	case t.Sweep:
		return fmt.Sprintf("sweep (events %d)", t.Events)
	case t.Full && t.Events == 0:
		return "full"
	case t.Full:
		return fmt.Sprintf("full (events %d)", t.Events)
	}
	return fmt.Sprintf("events %d", t.Events)
}
