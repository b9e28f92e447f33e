package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ipsync/ipsync/internal/bulkwrite"
	"github.com/ipsync/ipsync/internal/config"
	"github.com/ipsync/ipsync/internal/drift"
	"github.com/ipsync/ipsync/internal/memory"
	"github.com/ipsync/ipsync/internal/netbox"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/plural"
	"github.com/ipsync/ipsync/internal/progress"
	"github.com/ipsync/ipsync/internal/rangehealth"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sitesync"
)

// job is one owner's sync against one target, wired from flags and config.
type job struct {
	policy plan.Policy
	target reconcile.Target
	// savedTarget is the target that applies a saved plan object by
	// object, nil where the server has none (see server.savedTarget).
	savedTarget reconcile.Target
	targetID    string
	// server names the target in messages: "Nautobot", "NetBox".
	server string
	// refused are the changes an Apply's error says the target refused
	// one by one; nil for targets that do not say.
	refused func(err error) []*bulkwrite.ObjectError
	writeOK func() error
	desired reconcile.Desired
	// scope is what the owner's run reads of the target and plans.
	scope scope.Scope
	// leaks are what the source pointed out while producing desired.
	leaks []drift.Leak
	// ranges is how full the site's ranges are, counted while producing
	// desired; nil for the static spec.
	ranges  []rangehealth.Usage
	closers []func()
	// rangesElsewhere counts the spec's segment ranges, which go to the
	// sites' Neutron and so are not in a plan against Nautobot or NetBox.
	rangesElsewhere int
	poolsElsewhere  int
	// progress shows the reads and writes; writesProgress is set when the
	// target reports its writes to it.
	progress       *progress.Display
	writesProgress bool
	// reviews takes writes in a branch for review (apply --review); nil
	// where the server has no branches.
	reviews *netbox.Client
}

// noteRangesElsewhere tells where the segment ranges and subnet pools a
// static plan leaves out go, so that its counts add up with validate's.
// One line for both, as validate counts them together.
func (e *env) noteRangesElsewhere(j *job) {
	var parts []string
	for _, n := range []struct {
		count int
		noun  string
	}{{j.rangesElsewhere, "segment range"}, {j.poolsElsewhere, "subnet pool"}} {
		if n.count > 0 {
			parts = append(parts, plural.Of(n.count, n.noun))
		}
	}
	if len(parts) == 0 {
		return
	}
	verb, pronoun := "are", "they go"
	if len(parts) == 1 && j.rangesElsewhere+j.poolsElsewhere == 1 {
		verb, pronoun = "is", "it goes"
	}
	fmt.Fprintf(e.stderr, "note: the spec's %s %s not in this plan: %s to each site's Neutron (ipsync plan --config F --site S --target neutron)\n",
		strings.Join(parts, " and "), verb, pronoun)
}

// useMemory makes the job's target an empty in-process one which, like a
// new Nautobot, has the Global namespace.
func (j *job) useMemory() {
	j.target, j.targetID, j.server = reconcile.Stateless(memory.New(&resource.Namespace{Name: "Global"})), "memory", "the memory target"
	j.writeOK = func() error { return nil }
}

func (j *job) plan(ctx context.Context) (*reconcile.Result, error) {
	r, err := reconcile.Make(ctx, j.target, j.desired, j.policy, j.scope)
	// The plan goes out next: the bars of the reads end before it.
	j.progress.Flush()
	if err != nil {
		return nil, err
	}
	r.Plan.Leaks = j.leaks
	return r, nil
}

func (j *job) writeAllowed() error { return j.writeOK() }

// apply writes the plan, showing its writes per kind as they go.
func (j *job) apply(ctx context.Context, r *reconcile.Result) (int, error) {
	if j.writesProgress {
		perKind := map[resource.Kind]int{}
		for _, c := range r.Plan.Changes {
			if c.Action.Writes() {
				perKind[c.Key.Kind]++
			}
		}
		for _, k := range resource.Kinds() {
			j.progress.Expect("write "+string(k), perKind[k])
		}
	}
	n, err := r.Apply(ctx)
	j.progress.Flush()
	return n, err
}

func (j *job) close() {
	j.progress.Flush()
	for _, c := range j.closers {
		c()
	}
}

// newProgress shows progress on stderr: bars on a terminal, info lines in
// the log otherwise; never on stdout, where plans and reports go.
func (e *env) newProgress() *progress.Display {
	log := e.progressLog
	if log == nil {
		log = e.logger
	}
	return progress.New(e.stderr, progress.IsTerminal(e.stderr), log, 5*time.Second)
}

// loadConfig reads the config file, or starts from defaults without one.
func loadConfig(path string) (*config.Config, error) {
	if path == "" {
		c := config.Default()
		return &c, nil
	}
	return config.Load(path)
}

// prepare wires one job from flags and config: the desired objects (spec or a
// site's Neutron), the policy, and the target.
func (e *env) prepare(ctx context.Context, f *planFlags, paths []string) (*job, error) {
	if err := checkOutput(f.output, "text", "json", "markdown"); err != nil {
		return nil, err
	}
	cfg, err := loadConfig(f.config)
	if err != nil {
		return nil, err
	}
	j := &job{progress: e.newProgress()}
	useTarget(cfg, f.target)
	kind := f.target
	if kind == "" {
		kind = "memory"
		if cfg.TargetURL() != "" {
			kind = cfg.Target
		}
	}
	switch {
	case kind == "neutron":
		// The writes to Neutron: the spec's segment ranges and subnet
		// pools of one site.
		if f.site == "" {
			return nil, usagef("--target neutron writes a site's segment ranges and subnet pools: give --site")
		}
		site, err := cfg.Site(f.site)
		if err != nil {
			return nil, usage(fmt.Errorf("--site: %w", err))
		}
		objs, err := e.specObjects(cfg, paths)
		if err != nil {
			return nil, err
		}
		j.wantInNeutron(site, objs)
		j.policy = cfg.PlanPolicy(cfg.StaticOwner())
		if err := e.openNeutronTarget(ctx, cfg, site, j); err != nil {
			return nil, err
		}
	case f.site == "":
		objs, err := e.specObjects(cfg, paths)
		if err != nil {
			return nil, err
		}
		// Segment ranges flow to each site's Neutron, not to the target.
		j.rangesElsewhere = countKind(objs, resource.KindSegmentRange)
		j.poolsElsewhere = countKind(objs, resource.KindSubnetPool)
		objs = slices.DeleteFunc(objs, func(o resource.Object) bool { return o.Kind().NeutronOnly() })
		j.desired = func(context.Context, []resource.Object) ([]resource.Object, error) { return objs, nil }
		j.policy = cfg.PlanPolicy(cfg.StaticOwner())
		j.scope = scope.Static(cfg.StaticOwner())
	default:
		site, err := cfg.Site(f.site)
		if err != nil {
			return nil, usage(fmt.Errorf("--site: %w", err))
		}
		src, err := e.openSite(ctx, site, neutron.WithProgress(j.progress))
		if err != nil {
			return nil, err
		}
		// Neutron first: its physical networks say which VLAN groups the
		// target is read in.
		snap, err := src.read(ctx)
		if err != nil {
			return nil, err
		}
		j.desired = func(_ context.Context, current []resource.Object) ([]resource.Object, error) {
			objs, leaks := src.desired(snap, current, cfg.TargetName())
			j.leaks, j.ranges = leaks, sitesync.RangeUsage(snap, current)
			return objs, nil
		}
		j.policy = cfg.PlanPolicy(resource.NeutronOwner(site.Name))
		j.scope = siteScope(site, snap)
	}
	if f.mode != "" {
		if j.policy.Mode, err = plan.ParseMode(f.mode); err != nil {
			return nil, usage(err)
		}
	}
	j.policy.Adopt = f.adopt
	j.policy.AllowMassDelete = f.allowMassDelete

	switch kind {
	case "neutron":
	case "memory":
		j.useMemory()
		fmt.Fprintln(e.stderr, "target: memory (an empty in-process target; nothing leaves this process)")
	case config.TargetNautobot, config.TargetNetBox:
		if err := e.openTarget(cfg, j.scope, j); err != nil {
			return nil, err
		}
	default:
		return nil, usagef("--target %q: want nautobot or netbox (the config's server of that name), memory, or neutron (a site's segment ranges)", kind)
	}
	return j, nil
}

// specObjects loads the static spec from the arguments or the config.
func (e *env) specObjects(cfg *config.Config, paths []string) ([]resource.Object, error) {
	if len(paths) == 0 {
		paths = cfg.SpecPaths()
	}
	if len(paths) == 0 {
		return nil, usagef("no spec: give spec paths as arguments or set spec.paths in the config")
	}
	objs, err := e.loadSpec(paths, cfg.StaticOwner())
	if err != nil {
		return nil, err
	}
	for _, d := range unknownSites(cfg, objs) {
		fmt.Fprintf(e.stderr, "note: %s\n", d)
	}
	return objs, nil
}

func siteNamespace(s *config.Site) string {
	if s.Namespace != "" {
		return s.Namespace
	}
	return s.Name
}

// wantInNeutron makes the job plan objs, the static spec's objects,
// against site's Neutron: those of the kinds the site opts in to, with the
// unmarked ranges there that no spec declares as leaks.
func (j *job) wantInNeutron(site *config.Site, objs []resource.Object) {
	objs = siteNeutronObjects(site, objs)
	j.desired = func(_ context.Context, current []resource.Object) ([]resource.Object, error) {
		j.leaks = undeclaredRanges(objs, current)
		return objs, nil
	}
}

// undeclaredRanges are the unmarked ranges in a site's Neutron that no spec
// declares: someone made them by hand, and Neutron hands out their ids.
func undeclaredRanges(desired, current []resource.Object) []drift.Leak {
	declared := map[resource.Key]bool{}
	for _, d := range desired {
		declared[d.Key()] = true
	}
	var out []drift.Leak
	for _, c := range current {
		if r, ok := c.(*resource.SegmentRange); ok && r.M.Owner == "" && !declared[r.Key()] {
			out = append(out, drift.Leak{Kind: "segment_range", Key: r.Name,
				Message: fmt.Sprintf("%s range %d-%d in Neutron that no spec declares", r.NetworkType, r.Minimum, r.Maximum)})
		}
	}
	return out
}
