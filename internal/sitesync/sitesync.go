// Package sitesync syncs one site's Neutron into the target: in full, or
// narrowed to the networks that Neutron's notifications named. A narrowed
// sync writes exactly what a full sync of the same Neutron state would
// write for those networks, and nothing else.
package sitesync

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ipsync/ipsync/internal/drift"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// Source reads a site's Neutron, whole or by network.
type Source interface {
	Read(ctx context.Context) (*neutron.Snapshot, error)
	ReadNetworks(ctx context.Context, ids []string) (*neutron.Snapshot, error)
}

// Config is one site's sync.
type Config struct {
	Map    neutron.MapConfig // KnownGroups is filled from the target on every run
	Policy plan.Policy
	// DryRun plans and reports without writing.
	DryRun bool
}

// Networks asks for a sync narrowed to these Neutron networks; empty asks
// for a full sync.
type Networks []string

// Outcome is what one sync did. A nil Plan means nothing was concluded for
// the whole site: a side could not be read, or the sync was narrowed.
type Outcome struct {
	Plan   *plan.Plan
	Writes int
	Drift  drift.Owner
}

// UnreachableError is a sync that could not read a side ("neutron",
// "nautobot"); nothing was planned, so nothing was deleted.
type UnreachableError struct {
	Side string
	Err  error
}

func (e *UnreachableError) Error() string { return e.Side + " unreachable: " + e.Err.Error() }
func (e *UnreachableError) Unwrap() error { return e.Err }

// Syncer keeps the last Neutron snapshot: a narrowed sync maps it, patched
// with the named networks as Neutron has them now, in whole.
type Syncer struct {
	cfg    Config
	source Source
	target reconcile.Target

	mu   sync.Mutex // one sync at a time; guards last
	last *neutron.Snapshot
}

// New returns a Syncer.
func New(cfg Config, source Source, target reconcile.Target) *Syncer {
	return &Syncer{cfg: cfg, source: source, target: target}
}

// Sync reads both sides, plans and writes. With no networks named, or
// before the first full sync, it syncs the whole site.
//
// A narrowed sync maps the whole site, the last snapshot with the named
// networks read anew, because names, namespaces and which of two records
// claiming one object wins are decided across the site. Its plan covers
// the objects the named networks account for now or did before; an object
// the whole mapping still produces is updated to its winner, never
// deleted, and no other network's objects are touched.
func (s *Syncer) Sync(ctx context.Context, nets Networks) (Outcome, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var snap *neutron.Snapshot
	sc := scope.Scope{}
	if len(nets) > 0 && s.last != nil {
		fresh, err := s.source.ReadNetworks(ctx, nets)
		if err != nil {
			return Outcome{}, &UnreachableError{Side: "neutron", Err: err}
		}
		snap = replace(s.last, nets, fresh)
		// Without the target's groups the footprint may hold VLANs of
		// groups it lacks: more than needed, never less.
		sc.Only = neutron.Footprint(s.cfg.Map, nets, s.last, snap)
	}
	var report neutron.Report
	desired := func(ctx context.Context, current []resource.Object) ([]resource.Object, error) {
		if snap == nil {
			var err error
			if snap, err = s.source.Read(ctx); err != nil {
				return nil, &UnreachableError{Side: "neutron", Err: err}
			}
		}
		mc := s.cfg.Map
		mc.KnownGroups = KnownGroups(current)
		objs, r := neutron.Map(snap, mc)
		report = r
		return objs, nil
	}
	r, err := reconcile.Make(ctx, s.target, desired, s.cfg.Policy, sc)
	if err != nil {
		if _, ok := errors.AsType[*UnreachableError](err); ok {
			return Outcome{}, err
		}
		return Outcome{}, &UnreachableError{Side: "nautobot", Err: err}
	}
	out, err := s.apply(ctx, r, report)
	if err == nil {
		s.last = snap
	}
	if sc.Only != nil {
		out.Plan = nil // a part of the site: the agent keeps the full drift it has
	}
	return out, err
}

func (s *Syncer) apply(ctx context.Context, r *reconcile.Result, report neutron.Report) (Outcome, error) {
	out := Outcome{Plan: r.Plan, Drift: drift.FromPlan(r.Plan, Leaks(report))}
	if s.cfg.DryRun {
		return out, nil
	}
	n, err := r.Apply(ctx, s.target)
	out.Writes = n
	if err != nil {
		return out, fmt.Errorf("site %s: %w", s.cfg.Map.Site, err)
	}
	// Everything planned was written: what remains is the leaks.
	out.Drift.Items = []drift.Item{}
	return out, nil
}

// KnownGroups are the names of the VLAN groups in current.
func KnownGroups(current []resource.Object) map[string]bool {
	out := map[string]bool{}
	for _, o := range current {
		if g, ok := o.(*resource.VLANGroup); ok {
			out[g.Name] = true
		}
	}
	return out
}
