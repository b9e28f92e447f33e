package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ipsync/ipsync/internal/agent"
	"github.com/ipsync/ipsync/internal/config"
	"github.com/ipsync/ipsync/internal/drift"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/specwatch"
)

// specToNeutron is the agent's share of `plan|apply --site S --target
// neutron`: the static spec's objects the site opts in to (segment ranges,
// subnet pools with their address scopes), planned against the site's
// Neutron with the same job, checked whole as apply checks them, and
// written unless the agent runs dry. The agent runs one sync at a time,
// so its fields are never used by two at once.
type specToNeutron struct {
	site   *config.Site
	paths  []string
	owner  resource.Owner
	policy plan.Policy
	dryRun bool
	// base is the job with the site's Neutron as its target, opened once:
	// each sync plans on a copy of it, with the spec as then loaded.
	base job
	// spec is the spec last loaded, kept while its files stay the same:
	// hashing them costs less than parsing them again every sync.
	spec loadedSpec
}

type loadedSpec struct {
	fp   specwatch.Fingerprint
	objs []resource.Object
	err  error
	ok   bool // fp, objs and err are from a load
}

// newSpecToNeutron opens the site's Neutron for what the config lets
// ipsync write there; nil, nil when the site opts in to nothing.
func (e *env) newSpecToNeutron(ctx context.Context, cfg *config.Config, site *config.Site, dryRun bool) (*specToNeutron, error) {
	if !site.SegmentRanges && !site.SubnetPools {
		return nil, nil
	}
	s := &specToNeutron{site: site, paths: cfg.SpecPaths(), owner: cfg.StaticOwner(), policy: cfg.PlanPolicy(cfg.StaticOwner()), dryRun: dryRun}
	if err := e.openNeutronTarget(ctx, cfg, site, &s.base); err != nil {
		return nil, err
	}
	return s, nil
}

// sync plans the spec's objects of the site against its Neutron and,
// unless the agent runs dry, writes the plan once it passed every check.
// Whatever stops it is the part's error, never the sync's: the sync of
// Neutron into the target goes on without it.
func (s *specToNeutron) sync(ctx context.Context) *agent.NeutronPart {
	failed := func(err error) *agent.NeutronPart {
		return &agent.NeutronPart{Err: err, Drift: drift.Owner{Owner: s.owner, Target: s.base.targetID, Error: err.Error()}}
	}
	objs, err := s.load()
	if err != nil {
		return failed(err)
	}
	j := s.base
	j.policy = s.policy
	j.wantInNeutron(s.site, objs)
	r, err := j.plan(ctx)
	if err != nil {
		return failed(fmt.Errorf("plan the spec against %s: %w", j.server, err))
	}
	out := &agent.NeutronPart{Plan: r.Plan, Drift: ownerDrift(r, j.leaks)}
	out.Drift.Target = j.targetID
	if err := r.Preflight(); err != nil {
		out.Err = err
		return out
	}
	if s.dryRun {
		return out
	}
	n, err := j.apply(ctx, r)
	out.Writes = n
	if err != nil {
		out.Err = fmt.Errorf("write the spec to %s: %w (%d written before the failure)", j.server, err, n)
		return out
	}
	// Everything planned was written.
	out.Drift = out.Drift.Written()
	return out
}

// load is the spec as its files are now, parsed again only when they
// changed since the last load.
func (s *specToNeutron) load() ([]resource.Object, error) {
	if len(s.paths) == 0 {
		return nil, errors.New("no spec: the site takes the spec's segment ranges or subnet pools, but the config sets no spec.paths")
	}
	fp, err := specwatch.Of(s.paths)
	if err != nil {
		return nil, fmt.Errorf("read spec %s: %w", strings.Join(s.paths, ", "), err)
	}
	if !s.spec.ok || fp != s.spec.fp {
		objs, fp, err := loadStableSpec(s.paths, s.owner)
		s.spec = loadedSpec{fp: fp, objs: objs, err: err, ok: err == nil || fp != specwatch.Fingerprint{}}
	}
	return s.spec.objs, s.spec.err
}
