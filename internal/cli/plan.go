package cli

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ipsync/ipsync/internal/config"
	"github.com/ipsync/ipsync/internal/memory"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/plural"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

const planFormat = plan.FormatVersion

// planFlags are shared by plan, apply and drift.
type planFlags struct {
	config          string
	target          string
	site            string
	output          string
	adopt           bool
	mode            string
	allowMassDelete bool
	summary         bool
}

func (f *planFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&f.config, "config", "c", "", "config file (ipsync.yaml); without it, spec paths come from the arguments")
	cmd.Flags().StringVar(&f.target, "target", "", "target: nautobot (default with a config), memory (an empty in-process target), or neutron (with --site: the spec's segment ranges to that site's Neutron)")
	cmd.Flags().StringVar(&f.site, "site", "", "sync the Neutron of this site (from the config) instead of the static spec")
	cmd.Flags().StringVarP(&f.output, "output", "o", "text", "output format: text or json")
	cmd.Flags().BoolVar(&f.adopt, "adopt", false, "take over unmarked objects that match desired ones by natural key")
	cmd.Flags().StringVar(&f.mode, "mode", "", "policy mode: sync, upsert-only or create-only (default from config: sync)")
	cmd.Flags().BoolVar(&f.allowMassDelete, "allow-mass-delete", false, "lift the mass-delete guard for this run")
	cmd.Flags().BoolVar(&f.summary, "summary", false, "text output: only the counts per kind and action, refusals and leaks, not each change")
}

func newPlan(e *env) *cobra.Command {
	var f planFlags
	var out string
	cmd := &cobra.Command{
		Use:   "plan [SPEC-PATH...]",
		Short: "Read both sides and show what apply would change (never writes)",
		Long: `Plan reads the owner's side (the spec, or with --site a site's Neutron) and the
target, and prints what apply would change: counts per kind and action, the reasons
the plan would be refused, then each change with old -> new per field. It never writes.

Exit status: 0 no changes, 2 changes to apply, 3 the plan would be refused,
1 error, 64 usage error.`,
		RunE: func(cmd *cobra.Command, paths []string) error {
			job, err := e.prepare(cmd.Context(), &f, paths)
			if err != nil {
				return err
			}
			defer job.close()
			r, err := job.plan(cmd.Context())
			if err != nil {
				return err
			}
			if out != "" {
				if err := writePlanFile(out, r.Plan, job.targetID); err != nil {
					return err
				}
			}
			if err := e.render(&f, r.Plan, job.targetID); err != nil {
				return err
			}
			e.reportLeaks(r.Plan, f.output == "text")
			e.noteRangesElsewhere(job)
			if e.reportRefusal(r, f.output) {
				if out != "" {
					fmt.Fprintf(e.stderr, "saved %s with its refusals: apply --plan %s will refuse it\n", out, out)
				}
				return status(ExitRefused)
			}
			if n := r.Plan.Writes(); n > 0 {
				return status(ExitChanges)
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&out, "out", "", "also save the plan as JSON to this file, for apply --plan")
	return cmd
}

func (e *env) render(f *planFlags, p *plan.Plan, target string) error {
	switch f.output {
	case "text":
		if f.summary {
			return p.WriteSummary(e.stdout)
		}
		return p.WriteText(e.stdout)
	case "json":
		return p.WriteJSON(e.stdout, target)
	}
	return usagef("--output %q: want text or json", f.output)
}

// actionCounts is "56 create, 2 delete": the writes of a plan by action.
func actionCounts(p *plan.Plan) string {
	var parts []string
	for _, a := range []plan.Action{plan.Create, plan.Update, plan.Adopt, plan.Delete} {
		if n := p.Summary.Total(a); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, a))
		}
	}
	if len(parts) == 0 {
		return "nothing to write"
	}
	return strings.Join(parts, ", ")
}

// checkOutput refuses an unknown output format before anything is read.
func checkOutput(format string, allowed ...string) error {
	if slices.Contains(allowed, format) {
		return nil
	}
	return usagef("--output %q: want %s", format, strings.Join(allowed, " or "))
}

// reportLeaks notes on stderr what the source holds that nothing accounts
// for, unless the text rendering listed them already; they do not stop the
// plan.
func (e *env) reportLeaks(p *plan.Plan, listed bool) {
	if listed {
		return
	}
	for _, l := range p.Leaks {
		fmt.Fprintf(e.stderr, "leak: %s %s: %s\n", l.Kind, l.Key, l.Message)
	}
}

// reportRefusal says on stderr why apply would refuse the plan, and
// reports whether it would. The text rendering already lists every reason;
// after JSON on stdout, a person still needs them on the terminal.
func (e *env) reportRefusal(r *reconcile.Result, format string) bool {
	if len(r.Plan.Refusals) == 0 {
		return false
	}
	if format != "text" {
		for _, line := range r.Plan.Refusals {
			fmt.Fprintln(e.stderr, line)
		}
	}
	fmt.Fprintf(e.stderr, "plan refused (%s above); apply would write nothing%s\n", plural.Of(len(r.Plan.Refusals), "reason"), refusalHint(r))
	return true
}

// refusalHint says where unresolved references are fixed, which depends on
// whose data they are.
func refusalHint(r *reconcile.Result) string {
	if len(r.Problems) == 0 {
		return ""
	}
	if owner := r.Plan.Policy.Owner; owner.Source() == resource.SourceNeutron {
		return fmt.Sprintf("; the objects come from site %s's Neutron: fix them there, or the spec's VLAN groups and namespaces they need", owner.Name())
	}
	return "; fix the spec, or create in Nautobot what it refers to"
}

func writePlanFile(path string, p *plan.Plan, target string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("save plan: %w", err)
	}
	if err := p.WriteJSON(f, target); err != nil {
		f.Close()
		return fmt.Errorf("save plan %s: %w", path, err)
	}
	return f.Close()
}

func readPlanFile(path string) (*plan.Plan, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("read plan: %w", err)
	}
	defer f.Close()
	p, target, err := plan.ReadJSON(f)
	if err != nil {
		return nil, "", fmt.Errorf("read plan %s: %w", path, err)
	}
	return p, target, nil
}

// prepareSaved reads a saved plan and wires the job that applies it. The
// plan names its owner, objects, policy and target, so spec paths, --site,
// --target and the policy flags have no say; the config gives only what a
// plan must not carry: where the target is and how to log in.
func (e *env) prepareSaved(ctx context.Context, cmd *cobra.Command, f *planFlags, paths []string, file string) (*plan.Plan, *job, error) {
	if err := checkOutput(f.output, "text", "json"); err != nil {
		return nil, nil, err
	}
	if len(paths) > 0 {
		return nil, nil, usagef("--plan: a saved plan carries its objects; drop the spec paths")
	}
	for _, name := range []string{"site", "target", "adopt", "mode", "allow-mass-delete"} {
		if cmd.Flags().Changed(name) {
			return nil, nil, usagef("--plan: a saved plan carries its owner, target and policy; drop --%s (or pass it to plan when making the plan)", name)
		}
	}
	saved, target, err := readPlanFile(file)
	if err != nil {
		return nil, nil, err
	}
	owner := saved.Policy.Owner
	j := &job{policy: saved.Policy, progress: e.newProgress()}
	if target == "memory" {
		j.target, j.targetID = memory.New(&resource.Namespace{Name: "Global"}), "memory"
		j.writeOK = func() error { return nil }
		return saved, j, nil
	}
	if f.config == "" {
		return nil, nil, usagef("--plan %s needs --config: the plan names its target (%s) but carries no URL or token", file, target)
	}
	cfg, err := loadConfig(f.config)
	if err != nil {
		return nil, nil, err
	}
	siteOf := func(name string) (*config.Site, error) {
		s, err := cfg.Site(name)
		if err != nil {
			return nil, fmt.Errorf("plan %s is for site %s: %w", file, name, err)
		}
		return s, nil
	}
	if site, ok := strings.CutPrefix(target, "neutron:"); ok {
		s, err := siteOf(site)
		if err != nil {
			return nil, nil, err
		}
		return saved, j, e.openRanges(ctx, cfg, s, j)
	}
	if target != cfg.Nautobot.URL {
		return nil, nil, fmt.Errorf("plan %s was made against %s, but the config's nautobot.url is %q", file, target, cfg.Nautobot.URL)
	}
	sc := scope.Static(owner)
	if owner.Source() == resource.SourceNeutron {
		s, err := siteOf(owner.Name())
		if err != nil {
			return nil, nil, err
		}
		sc = siteScope(s)
	}
	j.scope = sc
	if err := e.openNautobot(cfg, sc, j); err != nil {
		return nil, nil, err
	}
	return saved, j, nil
}

func newApply(e *env) *cobra.Command {
	var f planFlags
	var planFile string
	var commit bool
	cmd := &cobra.Command{
		Use:   "apply [SPEC-PATH...]",
		Short: "Plan (or load a saved plan), check it whole, and with --commit write it",
		Long: `Apply makes a plan (or loads one saved by plan --out), checks all of it before the
first write (references, conflicts, the mass-delete guard, and for a saved plan that
nothing it touches moved since), and writes it in dependency order with --commit.
Without --commit it is a dry run.

A saved plan carries its owner, its objects and its target; apply --plan needs only
--config, for the target's URL and token (and a site's Neutron for segment ranges).

Exit status: 0 applied (or, without --commit, nothing refused), 3 refused before
any write, 1 error, 64 usage error.`,
		RunE: func(cmd *cobra.Command, paths []string) error {
			ctx := cmd.Context()
			var saved *plan.Plan
			var job *job
			var err error
			if planFile != "" {
				saved, job, err = e.prepareSaved(ctx, cmd, &f, paths, planFile)
			} else {
				job, err = e.prepare(ctx, &f, paths)
			}
			if err != nil {
				return err
			}
			defer job.close()
			// Before anything is read: a refused host should not first cost
			// a whole read, retries or a printed plan.
			if commit {
				if err := job.writeAllowed(); err != nil {
					return &exitError{ExitRefused, err}
				}
			}
			var r *reconcile.Result
			if saved != nil {
				if r, err = reconcile.Saved(ctx, saved, job.target); err != nil {
					return err
				}
			} else if r, err = job.plan(ctx); err != nil {
				return err
			}
			if saved != nil && f.output == "text" {
				// As terraform apply PLANFILE: the plan was shown when it
				// was saved, and is not shown again.
				fmt.Fprintf(e.stdout, "Applying %s: %s for owner %s (%s)\n", planFile, plural.Of(r.Plan.Writes(), "change"), r.Plan.Policy.Owner, actionCounts(r.Plan))
				e.reportLeaks(r.Plan, false)
			} else {
				if err := e.render(&f, r.Plan, job.targetID); err != nil {
					return err
				}
				e.reportLeaks(r.Plan, f.output == "text")
			}
			if err := r.Preflight(); err != nil {
				return &exitError{ExitRefused, err}
			}
			if !commit {
				fmt.Fprintf(e.stderr, "dry run: %s planned, nothing written; rerun with --commit to write them\n", plural.Of(r.Plan.Writes(), "change"))
				return nil
			}
			n, err := job.apply(ctx, r)
			if err != nil {
				return fmt.Errorf("%w (%s written before the failure; run plan to see what is left)", err, plural.Of(n, "object"))
			}
			fmt.Fprintf(e.stderr, "applied: %s written to %s\n", plural.Of(n, "object"), job.targetID)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&planFile, "plan", "", "apply this saved plan (from plan --out) instead of planning anew; needs only --config")
	cmd.Flags().BoolVar(&commit, "commit", false, "write the changes (without it, apply is a dry run)")
	return cmd
}
