package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ipsync/ipsync/internal/bulkwrite"
	"github.com/ipsync/ipsync/internal/config"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/plural"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

func newApply(e *env) *cobra.Command {
	var f planFlags
	var planFile, reviewed string
	var commit, review bool
	cmd := &cobra.Command{
		Use: "apply [SPEC-PATH...]",
		Example: `  ipsync apply --config ipsync.yaml                      # a dry run: the plan and what would be refused
  ipsync apply --config ipsync.yaml --commit
  ipsync apply --config ipsync.yaml --site a11 --commit   # site a11's Neutron into the target
  ipsync plan --config ipsync.yaml --out plan.json && ipsync apply --config ipsync.yaml --plan plan.json --commit
  ipsync apply --config ipsync.yaml --reviewed sha256:0eee7b03...   --commit   # only the plan that was reviewed`,
		Short: "Plan (or load a saved plan), check it whole, and with --commit write it",
		Long: `Apply makes a plan (or loads one saved by plan --out), checks all of it before the
first write (references, conflicts, the mass-delete guard, and for a saved plan that
nothing it touches moved since), and writes it in dependency order with --commit.
Without --commit it is a dry run.

A saved plan carries its owner, its objects and its target; apply --plan needs only
--config, for the target's URL and token (and a site's Neutron for segment ranges).
Against NetBox each update and delete of a saved plan is written only if the object
is still as the plan saw it (If-Match): an object changed since is refused alone
(412) and left as it is, and the rest of the plan is written.

With --reviewed FINGERPRINT (from the reviewed plan's -o markdown or -o json) the plan
is written only if it is the reviewed one: a spec or a target changed since the review
makes another plan, refused whole.

With --review (NetBox with netbox-branching and netbox-change-control) the plan is
written to a new branch, not to main: a change request is opened on it, ipsync's
preflight reported as its check ipsync-preflight, and its URL printed (exit 4). main
changes when a person approves it and the branch is merged. A rerun reports the review
still open, and a change on main since that the plan also changes as a conflict (exit
3), never overwritten.

Exit status: 0 applied (or, without --commit, nothing refused), 3 refused before
any write, or objects of a saved plan refused because they changed since it was
made (the rest written), or a branch under review in conflict with main, 4 written to
a branch awaiting review, 1 error, 64 usage error.`,
		RunE: func(cmd *cobra.Command, paths []string) error {
			ctx := cmd.Context()
			if reviewed != "" {
				fp, err := plan.ParseFingerprint(reviewed)
				if err != nil {
					return usagef("--reviewed: %v", err)
				}
				reviewed = fp
			}
			if review && planFile != "" {
				return usagef("--review plans anew in a branch; drop --plan (review the saved plan's fingerprint with --reviewed instead)")
			}
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
			if review && job.reviews == nil {
				return usagef("--review writes to a NetBox branch, and %s has none: on Nautobot, review the plan (plan -o markdown) and apply it with --reviewed", job.server)
			}
			// Before anything is read: a refused host should not first cost
			// a whole read, retries or a printed plan.
			if commit {
				if err := job.writeAllowed(); err != nil {
					return &exitError{ExitRefused, err}
				}
			}
			// A saved plan is judged as it was saved: what it leaves out
			// when rechecked (writes applied before) was reviewed too.
			unreviewed := ""
			if reviewed != "" && saved != nil {
				unreviewed = saved.Unreviewed(reviewed)
			}
			var r *reconcile.Result
			perObject := job.savedTarget != nil && saved != nil
			switch {
			case perObject:
				if r, err = reconcile.SavedPerObject(ctx, saved, job.savedTarget); err != nil {
					return err
				}
			case saved != nil:
				if r, err = reconcile.Saved(ctx, saved, job.target); err != nil {
					return err
				}
			default:
				if r, err = job.plan(ctx); err != nil {
					return err
				}
			}
			if reviewed != "" && saved == nil {
				unreviewed = r.Plan.Unreviewed(reviewed)
			}
			if unreviewed != "" {
				r.Plan.Refusals = append(r.Plan.Refusals, unreviewed)
			}
			if saved != nil && f.output == "text" {
				// As terraform apply PLANFILE: the plan was shown when it
				// was saved, and is not shown again.
				fmt.Fprintf(e.stdout, "Applying %s: %s for owner %s (%s)\n", planFile, plural.Of(r.Plan.Writes(), "change"), r.Plan.Policy.Owner, actionCounts(r.Plan))
				if r.Applied > 0 {
					fmt.Fprintf(e.stdout, "%s of the plan already in %s as it writes them (applied before); left out\n", plural.Of(r.Applied, "change"), job.targetID)
				}
				e.reportLeaks(r.Plan, false)
			} else {
				if err := e.render(&f, r.Plan, job.targetID); err != nil {
					return err
				}
				e.reportLeaks(r.Plan, f.output == "text")
			}
			if perObject {
				fmt.Fprintf(e.stderr, "note: %s writes each update and delete of the plan only if the object is unchanged since the plan was made; an object changed since is refused (412) and left as it is, and the rest of the plan is written\n", job.server)
			}
			if err := r.Preflight(); err != nil {
				return &exitError{ExitRefused, err}
			}
			if !commit {
				where := ""
				if review {
					where = " to a NetBox branch for review"
				}
				fmt.Fprintf(e.stderr, "dry run: %s planned, nothing written; rerun with --commit to write them%s\n", plural.Of(r.Plan.Writes(), "change"), where)
				return nil
			}
			if review {
				return e.applyForReview(ctx, job, r)
			}
			n, err := e.applyInterruptible(ctx, job, r)
			if errors.Is(err, bulkwrite.ErrStopped) {
				return fmt.Errorf("interrupted: %s written to %s; %w; run plan to see what is left", plural.Of(n, "object"), job.targetID, err)
			}
			if err != nil && perObject {
				return e.perObjectFailure(err, n, job, r)
			}
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
	cmd.Flags().BoolVar(&review, "review", false, "NetBox: write the plan to a new branch (netbox-branching) and open a change request (netbox-change-control) that a person approves before it reaches main; exit 4 while it awaits review")
	cmd.Flags().StringVar(&reviewed, "reviewed", "", "write the plan only if its fingerprint is this one (sha256:..., from the reviewed plan -o markdown or json); refused if the spec or the target changed since the review")
	return cmd
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
		j.useMemory()
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
		return saved, j, e.openNeutronTarget(ctx, cfg, s, j)
	}
	// The plan names its server by URL; of a config with both sections,
	// it is applied to the one it was made against.
	switch target {
	case cfg.TargetURL():
	case cfg.Nautobot.URL:
		cfg.Target = config.TargetNautobot
	case cfg.NetBox.URL:
		cfg.Target = config.TargetNetBox
	default:
		return nil, nil, fmt.Errorf("plan %s was made against %s, but the config's %s.url is %q", file, target, cfg.Target, cfg.TargetURL())
	}
	sc := scope.Static(owner)
	if owner.Source() == resource.SourceNeutron {
		s, err := siteOf(owner.Name())
		if err != nil {
			return nil, nil, err
		}
		sc = siteScope(s, nil)
		sc.VLANGroups = planGroups(sc.VLANGroups, saved)
	}
	j.scope = sc
	if err := e.openTarget(cfg, sc, j); err != nil {
		return nil, nil, err
	}
	return saved, j, nil
}
