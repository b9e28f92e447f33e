// Package reconcile drives one owner's sync against one target: read the
// target, plan, check the whole plan before any write, then write. The CLI
// and the agent share it.
package reconcile

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/plural"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// Target is what reconcile needs of a target: one read of the owner's
// scope, which the plan is made against and its writes go through.
type Target interface {
	Read(ctx context.Context) (State, error)
	// Server names the target in messages: "Nautobot", "NetBox".
	Server() string
}

// State is one read of a target: the objects a plan is made against, and
// what the read learnt that the plan's checks and its writes use (the
// names and ids of the lookups, what the server allows where, the ids of
// the objects writes refer to). A plan checked against a State is
// written through it: nothing read between them changes what the writes
// name, and the writes read nothing again.
type State interface {
	// Objects are the objects in the owner's scope.
	Objects() []resource.Object
	// Names are the names of the kinds the target owns that desired
	// objects refer to (locations, statuses, roles, tenants), so that
	// references are checked before anything is written; nil for a
	// target that owns none.
	Names() map[resource.Kind]map[string]bool
	// AsStored is o as the target stores it: what a plan compares with
	// what the target holds, so that a value the server rewrites on save
	// (a DNS name it lowercases) is not planned as an update on every
	// run. It returns o itself when nothing changes.
	AsStored(o resource.Object) resource.Object
	// Check says before any write that the target cannot make change c
	// of plan p: it has no place for the desired object, or would refuse
	// the change half way (a delete of what the target still uses). It
	// may join several errors (errors.Join); one with a Field method is
	// about that field.
	Check(c plan.Change, p *plan.Plan) error
	// Apply writes changes in the order given and returns how many
	// objects it wrote.
	Apply(ctx context.Context, changes []plan.Change) (writes int, err error)
}

// fieldError is a Checker's error about one field of an object.
type fieldError interface {
	error
	Field() string
}

// Result is a plan with what it was made from.
type Result struct {
	Plan *plan.Plan
	// State is the read the plan was made against, which Apply writes
	// through.
	State   State
	Current []resource.Object
	// Problems are the desired objects that would not resolve in the
	// target. Each is also one of the Plan's Refusals, so that a saved
	// plan carries them and stays refused.
	Problems []Problem
	// Changed are the objects of a saved plan changed since it was made,
	// which SavedPerObject leaves to the target's compare-and-swap to
	// refuse one by one.
	Changed []resource.Key
	// Applied counts the changes of a saved plan the target already held
	// as the plan writes them (applied before), settled as noops.
	Applied int
}

// addProblems adds the problems not yet refused: a saved plan, checked
// again, already carries those found when it was made.
func (r *Result) addProblems(ps ...Problem) {
	for _, p := range ps {
		if slices.Contains(r.Plan.Refusals, p.String()) {
			continue
		}
		r.Problems = append(r.Problems, p)
		r.Plan.Refusals = append(r.Plan.Refusals, p.String())
	}
}

// Desired yields the owner's objects. It sees the target's current state,
// because a site's mapping depends on which VLAN groups the target has.
type Desired func(ctx context.Context, current []resource.Object) ([]resource.Object, error)

// Plan reads the target and plans desired against it. A failed read is an
// error, never an empty current state: that would turn into deletes.
func Plan(ctx context.Context, desired []resource.Object, t Target, policy plan.Policy) (*Result, error) {
	return Make(ctx, t, func(context.Context, []resource.Object) ([]resource.Object, error) { return desired, nil }, policy, scope.Scope{})
}

// Make is the one read -> plan -> check path of the CLI and the site sync:
// read the target, get the desired objects, plan them within sc (sc.Only
// narrows the plan, not the references it checks), and check the whole
// plan's references and the target's own rules. Errors of desired are
// returned as they are, so the caller can tell which side failed.
func Make(ctx context.Context, t Target, desired Desired, policy plan.Policy, sc scope.Scope) (*Result, error) {
	st, err := t.Read(ctx)
	if err != nil {
		return nil, fmt.Errorf("read target: %w", err)
	}
	return MakeOn(ctx, st, desired, policy, sc, t.Server())
}

// MakeOn is Make on st, a read of the target the caller made (a view
// kept up to date from the target's change log); server names the
// target in messages.
func MakeOn(ctx context.Context, st State, desired Desired, policy plan.Policy, sc scope.Scope, server string) (*Result, error) {
	current := st.Objects()
	want, err := desired(ctx, current)
	if err != nil {
		return nil, err
	}
	want = asStored(st, want)
	r := build(want, current, st.Names(), policy, sc, server)
	r.State = st
	r.CheckTarget(st)
	return r, nil
}

// asStored is desired as st stores it. The slice is the caller's (a spec
// loaded once and planned every poll): it is copied, not written, and
// only when an object changes.
func asStored(st State, desired []resource.Object) []resource.Object {
	out, copied := desired, false
	for i, o := range desired {
		s := st.AsStored(o)
		if s == o {
			continue
		}
		if !copied {
			out, copied = slices.Clone(desired), true
		}
		out[i] = s
	}
	return out
}

// build plans the desired objects sc plans against the current ones it
// plans. References resolve against everything: an object outside the
// plan still exists. The mass-delete guard measures against all the
// owner's objects.
func build(desired, current []resource.Object, names map[resource.Kind]map[string]bool, policy plan.Policy, sc scope.Scope, server string) *Result {
	if sc.Only != nil {
		owned := 0
		for _, c := range current {
			if c.Meta().Owner == policy.Owner {
				owned++
			}
		}
		policy.OwnedTotal = owned
		desired = slices.DeleteFunc(slices.Clone(desired), func(o resource.Object) bool { return !sc.Plans(o) })
	}
	part := current
	if sc.Only != nil {
		part = slices.DeleteFunc(slices.Clone(current), func(o resource.Object) bool { return !sc.Plans(o) })
	}
	p := plan.Make(desired, part, policy)
	r := &Result{Plan: p, Current: current}
	r.addProblems(References(p, desired, current, names, server)...)
	return r
}

// CheckTarget adds a problem for every object the plan writes that st
// says it cannot hold.
func (r *Result) CheckTarget(st State) {
	for _, ch := range r.Plan.Changes {
		if !ch.Action.Writes() {
			continue
		}
		err := st.Check(ch, r.Plan)
		if err == nil {
			continue
		}
		errs := []error{err}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			errs = j.Unwrap()
		}
		for _, e := range errs {
			field := string(ch.Key.Kind)
			if fe, ok := errors.AsType[fieldError](e); ok {
				field = fe.Field()
			}
			var src resource.Source
			if ch.Desired != nil {
				src = ch.Desired.Meta().Source
			}
			r.addProblems(Problem{Source: src, Key: ch.Key, Field: field, Message: e.Error()})
		}
	}
}

// ErrRefused marks a plan that preflight will not let through.
var ErrRefused = errors.New("plan refused")

// Preflight checks the whole plan before the first write: no refusals (a
// conflict, the mass-delete guard, a reference that does not resolve).
func (r *Result) Preflight() error {
	if len(r.Plan.Refusals) == 0 {
		return nil
	}
	return fmt.Errorf("%w, nothing was written:\n  %s", ErrRefused, strings.Join(r.Plan.Refusals, "\n  "))
}

// Apply writes the plan's changes through the read it was made against,
// after Preflight passed. It returns the number of objects written.
func (r *Result) Apply(ctx context.Context) (int, error) {
	if err := r.Preflight(); err != nil {
		return 0, err
	}
	var writes []plan.Change
	for _, c := range r.Plan.Changes {
		if c.Action.Writes() {
			writes = append(writes, c)
		}
	}
	if len(writes) == 0 {
		return 0, nil
	}
	// Targets name what failed; wrapping again would say "apply: apply:".
	return r.State.Apply(ctx, writes)
}

// Saved re-checks a plan made earlier against the target as it is now, as
// a fresh plan is checked: it refuses to apply if any object the plan
// touches moved since, if a reference no longer resolves, or if the target
// cannot hold an object it writes. The refusals it was saved with stay.
func Saved(ctx context.Context, saved *plan.Plan, t Target) (*Result, error) {
	return checkSaved(ctx, saved, t, Stale)
}

// SavedPerObject is Saved for a target that applies a saved plan with a
// compare-and-swap per object (NetBox's If-Match): an object changed since
// the plan is left to that check, which refuses it alone while the rest is
// written, instead of refusing the whole plan here. A create whose key was
// taken since, which no compare-and-swap guards, still refuses it.
func SavedPerObject(ctx context.Context, saved *plan.Plan, t Target) (*Result, error) {
	r, err := checkSaved(ctx, saved, t, StaleCreates)
	if err != nil {
		return nil, err
	}
	for _, m := range stale(saved, r.Current) {
		if !m.taken {
			r.Changed = append(r.Changed, m.key)
		}
	}
	return r, nil
}

func checkSaved(ctx context.Context, saved *plan.Plan, t Target, stale func(*plan.Plan, []resource.Object) []string) (*Result, error) {
	st, err := t.Read(ctx)
	if err != nil {
		return nil, fmt.Errorf("read target: %w", err)
	}
	current := st.Objects()
	r := &Result{Plan: saved, State: st, Current: current}
	var desired []resource.Object
	for _, c := range saved.Changes {
		if c.Desired != nil && c.Action.Writes() {
			desired = append(desired, c.Desired)
		}
	}
	r.addProblems(References(saved, desired, current, st.Names(), t.Server())...)
	r.CheckTarget(st)
	r.Applied = saved.Settle(Applied(saved, current))
	if moved := stale(saved, current); len(moved) > 0 {
		r.Plan.Refusals = append(r.Plan.Refusals, fmt.Sprintf("the target changed since the plan was made (%s moved); make a new plan:\n    %s",
			plural.Of(len(moved), "object"), strings.Join(moved, "\n    ")))
	}
	return r, nil
}
