package cli

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
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
}

func (f *planFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&f.config, "config", "c", "", "config file (ipsync.yaml); without it, spec paths come from the arguments")
	cmd.Flags().StringVar(&f.target, "target", "", "target: nautobot (default with a config) or memory (an empty in-process target)")
	cmd.Flags().StringVar(&f.site, "site", "", "sync the Neutron of this site (from the config) instead of the static spec")
	cmd.Flags().StringVarP(&f.output, "output", "o", "text", "output format: text or json")
	cmd.Flags().BoolVar(&f.adopt, "adopt", false, "take over unmarked objects that match desired ones by natural key")
	cmd.Flags().StringVar(&f.mode, "mode", "", "policy mode: sync, upsert-only or create-only (default from config: sync)")
	cmd.Flags().BoolVar(&f.allowMassDelete, "allow-mass-delete", false, "lift the mass-delete guard for this run")
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
			if err := e.render(f.output, r.Plan, job.targetID); err != nil {
				return err
			}
			e.reportLeaks(r.Plan, f.output)
			if e.reportRefusal(r, f.output) {
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

func (e *env) render(format string, p *plan.Plan, target string) error {
	switch format {
	case "text":
		return p.WriteText(e.stdout)
	case "json":
		return p.WriteJSON(e.stdout, target)
	}
	return usagef("--output %q: want text or json", format)
}

// checkOutput refuses an unknown output format before anything is read.
func checkOutput(format string, allowed ...string) error {
	if slices.Contains(allowed, format) {
		return nil
	}
	return usagef("--output %q: want %s", format, strings.Join(allowed, " or "))
}

// reportLeaks notes on stderr what the source holds that nothing accounts
// for, when the plan went out as JSON (the text rendering lists them); they
// do not stop the plan.
func (e *env) reportLeaks(p *plan.Plan, format string) {
	if format == "text" {
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
	fmt.Fprintf(e.stderr, "plan refused (%d reason(s) above); apply would write nothing\n", len(r.Plan.Refusals))
	return true
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

Exit status: 0 applied (or, without --commit, nothing refused), 3 refused before
any write, 1 error, 64 usage error.`,
		RunE: func(cmd *cobra.Command, paths []string) error {
			ctx := cmd.Context()
			job, err := e.prepare(ctx, &f, paths)
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
			if planFile != "" {
				saved, target, err := readPlanFile(planFile)
				if err != nil {
					return err
				}
				if target != job.targetID {
					return fmt.Errorf("plan %s was made against %s, not %s", planFile, target, job.targetID)
				}
				if saved.Policy.Owner != job.policy.Owner {
					return fmt.Errorf("plan %s is for owner %s, this run syncs %s", planFile, saved.Policy.Owner, job.policy.Owner)
				}
				if r, err = reconcile.Saved(ctx, saved, job.target); err != nil {
					return err
				}
			} else if r, err = job.plan(ctx); err != nil {
				return err
			}
			if err := e.render(f.output, r.Plan, job.targetID); err != nil {
				return err
			}
			e.reportLeaks(r.Plan, f.output)
			if err := r.Preflight(); err != nil {
				return &exitError{ExitRefused, err}
			}
			if !commit {
				fmt.Fprintf(e.stderr, "dry run: %d changes planned, nothing written; rerun with --commit to write them\n", r.Plan.Writes())
				return nil
			}
			n, err := r.Apply(ctx, job.target)
			if err != nil {
				return fmt.Errorf("%w (%d objects written before the failure; run plan to see what is left)", err, n)
			}
			fmt.Fprintf(e.stderr, "applied: %d objects written to %s\n", n, job.targetID)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&planFile, "plan", "", "apply this saved plan (from plan --out) instead of planning anew")
	cmd.Flags().BoolVar(&commit, "commit", false, "write the changes (without it, apply is a dry run)")
	return cmd
}
