package agent

import (
	"fmt"
	"time"
)

// Trigger is the work a sync is asked to do: the networks Neutron's
// notifications named, the whole site, or the whole site read whole. A nil
// *Trigger asks for a sweep.
type Trigger struct {
	// NetworkIDs are the networks notifications named. A full trigger keeps
	// them: a sync of the whole site that learns of Neutron's changes from
	// notifications reads them anew, so merging into one never forgets them.
	NetworkIDs    []string
	RangesChanged bool
	// Full asks for a sync of the whole site, not only NetworkIDs.
	Full bool
	// Unattributed says Neutron changed in ways no network list names (a
	// notification that named no network, a resync of the consumer, more
	// networks than maxPendingIDs): the sync reads Neutron whole. It
	// implies Full.
	Unattributed bool
	// Sweep asks for a full reconcile that reads both sides whole instead
	// of what changed since the last one; it implies Full.
	Sweep bool
	// Standby says this agent does not hold the lease: the sync brings
	// what it keeps of both sides up to date, as the holder's would, so
	// that taking the lease over costs no more than any other cycle, and
	// plans and writes nothing. Only the loop sets it, on the sync it
	// starts; merge never carries it over.
	Standby bool
	// Input says what the syncer plans from changed (the reconciler's
	// spec): a failed sync's backoff does not hold it back, since the
	// failure may be what the change fixes. It affects only the trigger's
	// arrival; merge does not carry it.
	Input bool
	// Events is how many notifications were coalesced into the trigger.
	Events int
	// Oldest is when the oldest coalesced event was emitted, for lag metrics.
	Oldest time.Time
}

// maxPendingIDs bounds the networks that queue up while syncs cannot run
// (a side is down, the lease is elsewhere): past it a whole read of Neutron
// is cheaper than reading every network by id.
const maxPendingIDs = 10_000

// merge folds b into a, either may be nil. Nothing either names is
// dropped unless the merged trigger reads Neutron whole, which covers it.
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
		out.RangesChanged = out.RangesChanged || t.RangesChanged
		out.Full = out.Full || t.Full || t.Unattributed || t.Sweep
		out.Unattributed = out.Unattributed || t.Unattributed
		out.Sweep = out.Sweep || t.Sweep
		out.Events += t.Events
		if !t.Oldest.IsZero() && (out.Oldest.IsZero() || t.Oldest.Before(out.Oldest)) {
			out.Oldest = t.Oldest
		}
	}
	if len(out.NetworkIDs) > maxPendingIDs {
		out.Full, out.Unattributed = true, true
	}
	if out.Unattributed || out.Sweep {
		out.NetworkIDs = nil
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
	case t.Standby:
		return "standby"
	case t.Sweep:
		return "sweep"
	case t.Full:
		return "full"
	}
	return "events"
}

// describe is the trigger as the status page shows it.
func describe(t Trigger) string {
	if t.Standby {
		u := t
		u.Standby = false
		return "standby: " + describe(u)
	}
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
