package cli

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ipsync/ipsync/internal/agent"
	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/config"
	"github.com/ipsync/ipsync/internal/drift"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/spec"
	"github.com/ipsync/ipsync/internal/specwatch"
)

func newReconcile(e *env) *cobra.Command {
	var configPath, listen, reviewedFile string
	var specDirs []string
	var poll time.Duration
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "reconcile --config F [--spec-dir D]... [--dry-run]",
		Short: "Apply the static spec continuously: whenever its files change, and every agent.interval",
		Long: `Reconcile keeps the target (the config's Nautobot or NetBox) in agreement with the
static spec, as apply --commit would, for as long as it runs: it plans and applies at
start, within --poll of any change to the spec's files (a mounted ConfigMap or a
git-sync checkout, whose files change by a swap of a symbolic link), and every
agent.interval, which also puts back what someone changed in the target by hand.

Every plan goes through the same checks as apply's: a plan with a conflict, a
reference that does not resolve, or more deletes than the mass-delete guard allows is
refused whole and nothing is written; it stays refused, and is planned again, until
the spec or the target changes. The last plan, the refusal and the drift are on the
status page and in the metrics (agent.listen). One reconciler per spec writes at a
time: it holds the owner's lease (static:<spec.name>), as agents do theirs (agent.lease).
With --dry-run it takes no lease and writes nothing: it plans and reports.

With --reviewed-file F it writes only a plan that was reviewed: F holds the
fingerprint of the plan a person approved (plan -o markdown shows it; GitOps keeps it
beside the spec, in the same ConfigMap). A plan with another fingerprint, because the
spec or the target changed since the review, is refused whole until a new fingerprint
is given; a plan that writes nothing needs none.`,
		Example: `  ipsync reconcile --config /etc/ipsync/ipsync.yaml --spec-dir /etc/ipsync/spec
  ipsync reconcile --config ipsync.yaml --dry-run --listen 127.0.0.1:9479`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if configPath == "" {
				return usagef("reconcile needs --config: the target and the spec's name")
			}
			if poll <= 0 {
				return usagef("--poll %v: want a positive duration", poll)
			}
			cfg, err := loadConfig(configPath)
			if err != nil {
				return err
			}
			if listen != "" {
				cfg.Agent.Listen = listen
			}
			paths := specDirs
			if len(paths) == 0 {
				paths = cfg.SpecPaths()
			}
			if len(paths) == 0 {
				return usagef("no spec: give --spec-dir or set spec.paths in the config")
			}
			return e.runReconciler(cmd.Context(), cfg, paths, reviewedFile, poll, dryRun)
		},
	}
	cmd.Flags().StringVarP(&configPath, "config", "c", "", "config file (ipsync.yaml) (required)")
	cmd.Flags().StringArrayVar(&specDirs, "spec-dir", nil, "a spec file or directory, repeatable (default: the config's spec.paths)")
	cmd.Flags().StringVar(&listen, "listen", "", "HTTP address for metrics and status (default from config, agent.listen)")
	cmd.Flags().DurationVar(&poll, "poll", 5*time.Second, "how often the spec's files are checked for a change")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "plan and report drift, never write")
	cmd.Flags().StringVar(&reviewedFile, "reviewed-file", "", "write only the plan whose fingerprint this file holds (sha256:..., the reviewed plan's); read at every sync")
	return cmd
}

func (e *env) runReconciler(ctx context.Context, cfg *config.Config, paths []string, reviewedFile string, poll time.Duration, dryRun bool) error {
	reg := newRegistry()
	owner := cfg.StaticOwner()
	server, err := e.openServer(cfg, nil)
	if err != nil {
		return err
	}
	if !dryRun {
		if err := cfg.WriteAllowed(server.url); err != nil {
			return &exitError{ExitRefused, fmt.Errorf("%w (--dry-run only reads)", err)}
		}
	}
	lease, err := newLease(server, cfg, owner, e.logger.With("site", string(owner)))
	if err != nil {
		return err
	}
	sc := scope.Static(owner)
	target, _ := server.target(sc)
	syncer := &staticSyncer{paths: paths, owner: owner, policy: cfg.PlanPolicy(owner), target: target, scope: sc,
		side: strings.ToLower(server.name), dryRun: dryRun, reviewedFile: reviewedFile}
	// Every sync reads the target whole (the spec's objects are few next
	// to a site's): sweeps and periodic syncs are the same here.
	ac := agent.Config{Site: string(owner), Heading: "Reconciler for", Role: "reconciler", Version: versionText(), Sides: []string{strings.ToLower(server.name)}, Target: server.url, Interval: cfg.Agent.Interval,
		Sweep: max(cfg.Agent.Sweep, cfg.Agent.Interval), Jitter: cfg.Agent.Jitter, LeaseTTL: cfg.Agent.LeaseTTL, LeaseRenew: cfg.Agent.LeaseRenew, DryRun: dryRun}
	a := agent.New(ac, syncer, lease, e.logger, reg)
	log := e.logger.With("site", string(owner))
	stopServing, err := serveStatus(a.Handler(), cfg.Agent.Listen, log, dryRun)
	if err != nil {
		return err
	}
	defer stopServing()
	a.SetCondition(agent.CondSpec, true, "watching "+strings.Join(paths, ", "))

	// A change queues one sync; changes while it waits join it. A new
	// reviewed fingerprint is a change too: the plan it approves is
	// applied within the poll, not at the next interval.
	watched := paths
	if reviewedFile != "" {
		watched = append(slices.Clone(paths), reviewedFile)
	}
	triggers := make(chan agent.Trigger, 1)
	initial, _ := specwatch.Of(watched) // a spec unreadable now is reported by the first sync
	go specwatch.Watch(ctx, clock.Real(), watched, poll, initial, func() {
		log.Info("the spec changed; planning again")
		select {
		case triggers <- agent.Trigger{Full: true, Input: true}:
		default:
		}
	})
	return a.Run(ctx, triggers)
}

// staticSyncer is one reconcile of the static spec for the reconciler's
// agent loop: load the spec (as it is at one instant), read the target,
// plan, check the whole plan, apply.
type staticSyncer struct {
	paths  []string
	owner  resource.Owner
	policy plan.Policy
	target reconcile.Target
	scope  scope.Scope
	side   string // the target, as conditions name it: nautobot, netbox
	dryRun bool
	// reviewedFile holds the fingerprint of the plan a person approved;
	// "" writes any plan that passes the checks.
	reviewedFile string
}

func (s *staticSyncer) Sync(ctx context.Context, t *agent.Trigger) (agent.Outcome, error) {
	objs, _, err := loadStableSpec(s.paths, s.owner)
	if err != nil {
		return agent.Outcome{}, err
	}
	// Segment ranges and subnet pools go to each site's Neutron.
	objs = slices.DeleteFunc(objs, func(o resource.Object) bool { return o.Kind().NeutronOnly() })
	if t != nil && t.Standby {
		// The holder plans and writes; a standby only shows the spec is valid.
		return agent.Outcome{}, nil
	}
	r, err := reconcile.Make(ctx, s.target, func(context.Context, []resource.Object) ([]resource.Object, error) { return objs, nil }, s.policy, s.scope)
	if err != nil {
		return agent.Outcome{}, agent.Unreachable(s.side, err)
	}
	if s.reviewedFile != "" {
		if why := reviewRefusal(s.reviewedFile, r.Plan); why != "" {
			r.Plan.Refusals = append(r.Plan.Refusals, why)
		}
	}
	out := agent.Outcome{Plan: r.Plan, Drift: drift.FromPlan(r.Plan, nil), Whole: map[string]bool{"target": true}}
	if err := r.Preflight(); err != nil {
		return out, err
	}
	if s.dryRun {
		return out, nil
	}
	n, err := r.Apply(ctx)
	out.Writes = n
	if err != nil {
		return out, fmt.Errorf("apply: %w (%d written before the failure)", err, n)
	}
	// Everything planned was written.
	out.Drift = out.Drift.Written()
	return out, nil
}

// loadStableSpec loads the spec at paths for owner as it was at one
// instant, for the daemons: an invalid spec is an error naming every
// problem by file and line. It returns the fingerprint of the files read.
func loadStableSpec(paths []string, owner resource.Owner) ([]resource.Object, specwatch.Fingerprint, error) {
	var objs []resource.Object
	var diags spec.Diagnostics
	fp, err := specwatch.Stable(paths, func() error {
		var err error
		objs, diags, err = spec.Load(paths, owner)
		return err
	})
	if err != nil {
		return nil, fp, fmt.Errorf("read spec: %w", err)
	}
	if len(diags) > 0 {
		lines := make([]string, len(diags))
		for i, d := range diags {
			lines[i] = d.String()
		}
		return nil, fp, fmt.Errorf("spec invalid, nothing was written: fix it where it is kept:\n  %s", strings.Join(lines, "\n  "))
	}
	return objs, fp, nil
}

// reviewRefusal says why p may not be written when the reviewed plan's
// fingerprint is kept in file, or "" when p is the reviewed plan or writes
// nothing. A file missing or unreadable approves nothing.
func reviewRefusal(file string, p *plan.Plan) string {
	if p.Writes() == 0 {
		return ""
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return fmt.Sprintf("no reviewed plan: %v; give the fingerprint of the reviewed plan (plan -o markdown shows it) in %s", err, file)
	}
	fp, err := plan.ParseFingerprint(string(b))
	if err != nil {
		return fmt.Sprintf("%s: %v", file, err)
	}
	if why := p.Unreviewed(fp); why != "" {
		return why + " in " + file
	}
	return ""
}
