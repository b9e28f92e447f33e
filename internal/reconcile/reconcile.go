// Package reconcile drives one owner's sync against one target: read the
// target, plan, check the whole plan before any write, then write. The CLI
// and the agent share it.
package reconcile

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/plural"
	"github.com/ipsync/ipsync/internal/resource"
)

// Target is what reconcile needs of a target: read the owner's scope, write
// changes in the order given.
type Target interface {
	List(ctx context.Context) ([]resource.Object, error)
	Apply(ctx context.Context, changes []plan.Change) (writes int, err error)
}

// Namer is implemented by targets that own kinds the desired objects refer
// to (locations, statuses, roles, tenants), so references can be checked
// before anything is written.
type Namer interface {
	Names(ctx context.Context) (map[resource.Kind]map[string]bool, error)
}

// Checker is implemented by targets that can tell before any write that
// they have no place for a desired object. Check may join several errors
// (errors.Join); one with a Field method is about that field.
type Checker interface {
	Check(o resource.Object) error
}

// fieldError is a Checker's error about one field of an object.
type fieldError interface {
	error
	Field() string
}

// Result is a plan with what it was made from.
type Result struct {
	Plan    *plan.Plan
	Current []resource.Object
	// Problems are the desired objects that would not resolve in the
	// target. Each is also one of the Plan's Refusals, so that a saved
	// plan carries them and stays refused.
	Problems []Problem
}

func (r *Result) addProblems(ps ...Problem) {
	r.Problems = append(r.Problems, ps...)
	for _, p := range ps {
		r.Plan.Refusals = append(r.Plan.Refusals, p.String())
	}
}

// Plan reads the target and plans desired against it. A failed read is an
// error, never an empty current state: that would turn into deletes.
func Plan(ctx context.Context, desired []resource.Object, t Target, policy plan.Policy) (*Result, error) {
	current, names, err := Read(ctx, t)
	if err != nil {
		return nil, err
	}
	r := Build(desired, current, names, policy)
	r.CheckTarget(t)
	return r, nil
}

// Read reads the target's objects and, where the target has them, the names
// of the kinds it owns.
func Read(ctx context.Context, t Target) ([]resource.Object, map[resource.Kind]map[string]bool, error) {
	current, err := t.List(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("read target: %w", err)
	}
	var names map[resource.Kind]map[string]bool
	if n, ok := t.(Namer); ok {
		if names, err = n.Names(ctx); err != nil {
			return nil, nil, fmt.Errorf("read target names: %w", err)
		}
	}
	return current, names, nil
}

// Build plans desired against a current state already read.
func Build(desired, current []resource.Object, names map[resource.Kind]map[string]bool, policy plan.Policy) *Result {
	p := plan.Make(desired, current, policy)
	r := &Result{Plan: p, Current: current}
	r.addProblems(References(p, desired, current, names)...)
	return r
}

// CheckTarget adds a problem for every object the plan writes that t, if it
// is a Checker, says it cannot hold.
func (r *Result) CheckTarget(t Target) {
	c, ok := t.(Checker)
	if !ok {
		return
	}
	for _, ch := range r.Plan.Changes {
		if ch.Desired == nil || !ch.Action.Writes() {
			continue
		}
		err := c.Check(ch.Desired)
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
			r.addProblems(Problem{Source: ch.Desired.Meta().Source, Key: ch.Key, Field: field, Message: e.Error()})
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

// Apply writes the plan's changes after Preflight passed. It returns the
// number of objects written.
func (r *Result) Apply(ctx context.Context, t Target) (int, error) {
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
	return t.Apply(ctx, writes)
}

// Saved re-checks a plan made earlier against the target as it is now. The
// result refuses to apply if any object the plan touches moved since.
func Saved(ctx context.Context, saved *plan.Plan, t Target) (*Result, error) {
	current, err := t.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("read target: %w", err)
	}
	r := &Result{Plan: saved, Current: current}
	if moved := Stale(saved, current); len(moved) > 0 {
		r.Plan.Refusals = append(r.Plan.Refusals, fmt.Sprintf("the target changed since the plan was made (%s moved); make a new plan:\n    %s",
			plural.Of(len(moved), "object"), strings.Join(moved, "\n    ")))
	}
	return r, nil
}
