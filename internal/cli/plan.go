package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/plural"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
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
	markdownBytes   int
}

func (f *planFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&f.config, "config", "c", "", "config file (ipsync.yaml); without it, spec paths come from the arguments")
	cmd.Flags().StringVar(&f.target, "target", "", "target: nautobot or netbox (the config's server of that name; default: the config's target), memory (an empty in-process target), or neutron (with --site: the spec's segment ranges to that site's Neutron)")
	cmd.Flags().StringVar(&f.site, "site", "", "sync the Neutron of this site (from the config) instead of the static spec")
	cmd.Flags().StringVarP(&f.output, "output", "o", "text", "output format: text, json or markdown (for a pull request's comment)")
	cmd.Flags().BoolVar(&f.adopt, "adopt", false, "take over unmarked objects that match desired ones by natural key")
	cmd.Flags().StringVar(&f.mode, "mode", "", "policy mode: sync, upsert-only or create-only (default from config: sync)")
	cmd.Flags().BoolVar(&f.allowMassDelete, "allow-mass-delete", false, "lift the mass-delete guard for this run")
	cmd.Flags().BoolVar(&f.summary, "summary", false, "text output: only the counts per kind and action, refusals and leaks, not each change")
	cmd.Flags().IntVar(&f.markdownBytes, "markdown-max-bytes", plan.DefaultMarkdownBytes, "markdown output: its size at most (a GitHub comment takes 65,536 characters); changes past it are counted, not listed")
}

func newPlan(e *env) *cobra.Command {
	var f planFlags
	var out string
	cmd := &cobra.Command{
		Use: "plan [SPEC-PATH...]",
		Example: `  ipsync plan --target memory examples/          # every object as a create, no server needed
  ipsync plan --config ipsync.yaml --summary
  ipsync plan --config ipsync.yaml --site a11 -o json --out plan.json
  ipsync plan --config ipsync.yaml -o markdown > plan.md   # a pull request's comment, with the plan's fingerprint
  ipsync plan --config ipsync.yaml --site a11 --target neutron   # the spec's segment ranges of a11`,
		Short: "Read both sides and show what apply would change (never writes)",
		Long: `Plan reads the owner's side (the spec, or with --site a site's Neutron) and the
target, and prints what apply would change: counts per kind and action, the reasons
the plan would be refused, then each change with old -> new per field. It never writes.

Every plan has a fingerprint (-o markdown and -o json show it): apply --reviewed and
the reconciler's --reviewed-file write a plan only if it has the fingerprint that was
reviewed.

Exit status: 0 no changes, 2 changes to apply, 3 the plan would be refused,
1 error, 64 usage error.`,
		RunE: func(cmd *cobra.Command, paths []string) error {
			saved, err := createOutFile(out)
			if err != nil {
				return err
			}
			defer saved.discard()
			job, err := e.prepare(cmd.Context(), &f, paths)
			if err != nil {
				return err
			}
			defer job.close()
			r, err := job.plan(cmd.Context())
			if err != nil {
				return err
			}
			if err := saved.write(func(w io.Writer) error { return r.Plan.WriteJSON(w, job.targetID) }); err != nil {
				return err
			}
			if err := e.render(&f, r.Plan, job.targetID); err != nil {
				return err
			}
			e.reportLeaks(r.Plan, f.output == "text")
			e.noteRangesElsewhere(job)
			if e.reportRefusal(r, f.output, job.server) {
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
	case "markdown":
		return p.WriteMarkdown(e.stdout, plan.Markdown{Target: target, MaxBytes: f.markdownBytes})
	}
	return usagef("--output %q: want text, json or markdown", f.output)
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
func (e *env) reportRefusal(r *reconcile.Result, format, server string) bool {
	if len(r.Plan.Refusals) == 0 {
		return false
	}
	if format != "text" {
		for _, line := range r.Plan.Refusals {
			fmt.Fprintln(e.stderr, line)
		}
	}
	fmt.Fprintf(e.stderr, "plan refused (%s above); apply would write nothing%s\n", plural.Of(len(r.Plan.Refusals), "reason"), refusalHint(r, server))
	return true
}

// refusalHint says where unresolved references are fixed, which depends on
// whose data they are.
func refusalHint(r *reconcile.Result, server string) string {
	if len(r.Problems) == 0 {
		return ""
	}
	if owner := r.Plan.Policy.Owner; owner.Source() == resource.SourceNeutron {
		return fmt.Sprintf("; the objects come from site %s's Neutron: fix them there, or the spec's VLAN groups and namespaces they need", owner.Name())
	}
	return "; fix the spec, or create in " + server + " what it refers to"
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
