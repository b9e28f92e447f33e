// Package sitesync syncs one site's Neutron into the target: in full, or
// narrowed to the networks that Neutron's notifications named. It is the
// agent's Syncer.
package sitesync

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/ipsync/ipsync/internal/agent"
	"github.com/ipsync/ipsync/internal/drift"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
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

// Syncer keeps the last Neutron snapshot so that a narrowed sync knows what
// the named networks mapped to before (their objects may now be gone).
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

// Sync implements agent.Syncer.
func (s *Syncer) Sync(ctx context.Context, t *agent.Trigger) (agent.Outcome, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	current, names, err := reconcile.Read(ctx, s.target)
	if err != nil {
		return agent.Outcome{}, agent.Unreachable("nautobot", err)
	}
	mc := s.cfg.Map
	mc.KnownGroups = KnownGroups(current)

	if t == nil || t.Full || len(t.NetworkIDs) == 0 || s.last == nil {
		return s.full(ctx, mc, current, names)
	}
	return s.narrow(ctx, mc, t.NetworkIDs, current, names)
}

func (s *Syncer) full(ctx context.Context, mc neutron.MapConfig, current []resource.Object, names map[resource.Kind]map[string]bool) (agent.Outcome, error) {
	snap, err := s.source.Read(ctx)
	if err != nil {
		return agent.Outcome{}, agent.Unreachable("neutron", err)
	}
	desired, report := neutron.Map(snap, mc)
	r := reconcile.Build(desired, current, names, s.cfg.Policy)
	r.CheckTarget(s.target)
	out, err := s.apply(ctx, r, report)
	if err == nil {
		s.last = snap
	}
	return out, err
}

// narrow re-reads only the named networks. Its plan covers the objects those
// networks map to now and mapped to at the last read, so a network, subnet
// or port deleted in Neutron is deleted in the target, and nothing else is
// touched.
func (s *Syncer) narrow(ctx context.Context, mc neutron.MapConfig, ids []string, current []resource.Object, names map[resource.Kind]map[string]bool) (agent.Outcome, error) {
	fresh, err := s.source.ReadNetworks(ctx, ids)
	if err != nil {
		return agent.Outcome{}, agent.Unreachable("neutron", err)
	}
	before, _ := neutron.Map(only(s.last, ids), mc)
	desired, report := neutron.Map(fresh, mc)

	footprint := map[resource.Identity]bool{}
	for _, o := range slices.Concat(before, desired) {
		footprint[o.Identity()] = true
	}
	policy := s.cfg.Policy
	part := make([]resource.Object, 0, len(footprint))
	for _, c := range current {
		if c.Meta().Owner == policy.Owner {
			policy.OwnedTotal++
		}
		if footprint[c.Identity()] || referable(c.Kind()) {
			part = append(part, c)
		}
	}
	// Namespaces and VLAN groups are in part for references only: the site
	// owns none, so they never turn into deletes.
	r := reconcile.Build(desired, part, names, policy)
	r.CheckTarget(s.target)
	out, err := s.apply(ctx, r, report)
	if err == nil {
		s.last = replace(s.last, ids, fresh)
	}
	out.Plan = nil // a part of the site: the agent keeps the full drift it has
	return out, err
}

func (s *Syncer) apply(ctx context.Context, r *reconcile.Result, report neutron.Report) (agent.Outcome, error) {
	out := agent.Outcome{Plan: r.Plan, Drift: drift.FromPlan(r.Plan, Leaks(report))}
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

func referable(k resource.Kind) bool {
	return k == resource.KindNamespace || k == resource.KindVLANGroup
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
