package agent

import (
	"context"
	"errors"

	"github.com/ipsync/ipsync/internal/drift"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/rangehealth"
)

// Syncer runs one reconcile of the site: read Neutron, read Nautobot, plan,
// preflight, apply, as the Trigger asks: narrowed to what events named, of
// the whole site, or of the whole site read whole (a sweep). A nil Trigger
// asks for a sweep.
type Syncer interface {
	Sync(ctx context.Context, t *Trigger) (Outcome, error)
}

// Outcome is what one sync did. A nil Plan means nothing was concluded (a
// side could not be read), so the agent keeps the drift it showed before.
type Outcome struct {
	Plan   *plan.Plan
	Writes int
	Drift  drift.Owner
	// Reads counts requests per side ("neutron", "target").
	Reads map[string]int
	// Objects counts the objects read per side: all of them when the side
	// was read whole, else those read again because they changed.
	Objects map[string]int
	// Whole names the sides read whole, not by what changed since the
	// last sync.
	Whole map[string]bool
	// Misses are, per side, what a sweep, or the check of the target's
	// followed view, found that reading by changes had missed: an object
	// and how the two reads differ.
	Misses map[string][]string
	// Ranges is how full the site's ranges are, from a sync that counted
	// them (one of the whole site); nil leaves the last count standing.
	Ranges []rangehealth.Usage
	// Neutron is the sync's other direction: the static spec's objects
	// the site opts in to, planned against its Neutron and written there;
	// nil when the sync had none to make (the site opts in to nothing, a
	// narrowed or a standby's sync).
	Neutron *NeutronPart
}

// NeutronPart is what a sync did with the static spec's objects that go
// to the site's Neutron (segment ranges, subnet pools). It succeeds or
// fails on its own: a spec that does not load, a refused plan or a failed
// write there leaves the sync of Neutron into the target as it was.
type NeutronPart struct {
	// Plan is nil when nothing was planned: the spec could not be
	// loaded, or Neutron read.
	Plan *plan.Plan
	// Drift is the spec's drift in the site's Neutron, or why it could not
	// be told (Error).
	Drift  drift.Owner
	Writes int
	// Err says why the part wrote nothing or stopped short: the spec
	// invalid, the plan refused, Neutron unreadable, a write failed.
	Err error
}

// ErrUnreachable marks a sync that could not read a side. The Syncer plans
// nothing then, so nothing is deleted; the agent retries with backoff.
var ErrUnreachable = errors.New("unreachable")

// UnreachableError names the side that could not be read; the agent reports
// a failing condition of that name. It matches ErrUnreachable with errors.Is.
type UnreachableError struct {
	Side string
	Err  error
}

// Unreachable wraps err as a failed read of side.
func Unreachable(side string, err error) error { return &UnreachableError{Side: side, Err: err} }

func (e *UnreachableError) Error() string {
	if e.Err == nil {
		return e.Side + " unreachable"
	}
	return e.Side + " unreachable: " + e.Err.Error()
}

func (e *UnreachableError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrUnreachable}
	}
	return []error{ErrUnreachable, e.Err}
}

// unreachableSide is the condition an unreachable error fails. Errors that
// wrap ErrUnreachable without naming a side fail a condition of that name.
func unreachableSide(err error) string {
	if ue, ok := errors.AsType[*UnreachableError](err); ok && ue.Side != "" {
		return ue.Side
	}
	return "unreachable"
}
