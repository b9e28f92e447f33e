package cli

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/ipsync/ipsync/internal/netbox"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/plural"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
)

// reviewCheck is the change-control check apply --review reports on: the
// whole-plan preflight passed, and the branch holds the plan. A policy
// that lists it in its checks makes a failed one block the merge.
const reviewCheck = "ipsync-preflight"

// branchWait is how often a branch being provisioned is looked at; it
// takes a few seconds.
const branchWait = 250 * time.Millisecond

// notBranchName is what a branch name of an owner leaves out.
var notBranchName = regexp.MustCompile(`[^a-z0-9]+`)

// branchPrefix starts the names of the branches apply --review makes for
// owner; the plan's fingerprint ends them, so a rerun of the same plan
// finds its branch.
func branchPrefix(owner resource.Owner) string {
	return "ipsync-" + strings.Trim(notBranchName.ReplaceAllString(strings.ToLower(string(owner)), "-"), "-") + "-"
}

// planBranch starts the names of the branches of one plan; the time they
// were made ends them, as a plan may come back after its merge (main
// edited back by hand) and NetBox keeps a merged branch's name taken.
func planBranch(owner resource.Owner, fingerprint string) string {
	hex := strings.TrimPrefix(fingerprint, "sha256:")
	return branchPrefix(owner) + hex[:12] + "-"
}

// applyForReview writes the plan r into a new NetBox branch instead of
// main, opens a change request on it, reports the whole-plan preflight as
// its check, and says where a person reviews it (exit 4). main is
// untouched until someone merges the branch. An earlier review of this
// owner still open is looked at first: its conflicts with main are
// reported (exit 3) and never overwritten; the same plan already under
// review is not opened twice; a review of another plan, which this one
// replaces, is abandoned.
func (e *env) applyForReview(ctx context.Context, j *job, r *reconcile.Result) error {
	nb := j.reviews
	owner := r.Plan.Policy.Owner
	fp := r.Plan.Fingerprint()
	name := planBranch(owner, fp)
	branches, err := nb.BranchesNamed(ctx, branchPrefix(owner))
	if err != nil {
		return err
	}
	for _, b := range branches {
		if !b.Open() {
			continue
		}
		cr, hasCR, err := nb.ChangeRequestOf(ctx, b.ID)
		if err != nil {
			return err
		}
		if hasCR && (cr.Status == "completed" || cr.Status == "abandoned") {
			continue
		}
		conflicts, err := nb.Conflicts(ctx, b.ID)
		if err != nil {
			return err
		}
		if len(conflicts) > 0 {
			return &exitError{ExitRefused, conflictReport(nb, b, cr, hasCR, conflicts)}
		}
		if strings.HasPrefix(b.Name, name) && hasCR {
			fmt.Fprintf(e.stdout, "This plan awaits review in branch %s: %s\n", b.Name, nb.ChangeRequestURL(cr.ID))
			e.reviewState(cr)
			return status(ExitReview)
		}
		// Another plan of this owner, which this one replaces (the spec
		// or main moved on), or a branch a killed run left.
		if hasCR {
			if err := nb.AbandonChangeRequest(ctx, cr.ID); err != nil {
				return err
			}
		}
		if err := nb.DeleteBranch(ctx, b.ID); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "note: the earlier review in branch %s is replaced by this plan: its change request abandoned, its branch deleted\n", b.Name)
	}
	if r.Plan.Writes() == 0 {
		fmt.Fprintf(e.stderr, "nothing to review: %s holds what %s wants\n", j.targetID, owner)
		return nil
	}

	b, err := nb.CreateBranch(ctx, name+time.Now().UTC().Format("20060102t150405"), fmt.Sprintf("ipsync: the plan of %s (%s), fingerprint %s", owner, actionCounts(r.Plan), fp))
	if err != nil {
		return err
	}
	if b, err = nb.WaitBranch(ctx, b.ID, branchWait); err != nil {
		return err
	}
	n, check, err := e.writeBranch(ctx, j, nb.InBranch(b.SchemaID), fp)
	if err != nil {
		// Nothing of a failed write reaches main; the branch goes, so
		// that a rerun starts clean.
		if derr := nb.DeleteBranch(context.WithoutCancel(ctx), b.ID); derr != nil {
			err = fmt.Errorf("%w (and the branch %s stays: %v)", err, b.Name, derr)
		}
		return err
	}
	var md strings.Builder
	if err := r.Plan.WriteMarkdown(&md, plan.Markdown{Target: j.targetID, MaxBytes: 30000}); err != nil {
		return err
	}
	title := fmt.Sprintf("ipsync: %s for %s", actionCounts(r.Plan), owner)
	cr, err := nb.OpenChangeRequest(ctx, b, title, fp, md.String())
	if err != nil {
		return err
	}
	reported, err := nb.ReportCheck(ctx, cr.ID, reviewCheck, check.status, check.summary)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Written to branch %s (%s), not to main; review: %s\n", b.Name, plural.Of(n, "object"), nb.ChangeRequestURL(cr.ID))
	if !reported {
		fmt.Fprintf(e.stderr, "note: no change-control policy requires the check %s, so its result (%s) does not gate the merge: add %q to a policy's checks\n", reviewCheck, check.status, reviewCheck)
	}
	if check.status != "success" {
		return fmt.Errorf("the branch does not hold the plan: %s", check.summary)
	}
	fmt.Fprintln(e.stderr, "awaiting review: main changes when the change request is approved and the branch merged; then plan shows nothing left")
	return status(ExitReview)
}

// branchCheck is the result of the review's check.
type branchCheck struct{ status, summary string }

// writeBranch plans the job again in the branch (a copy of main as it was
// made), checks the plan whole, writes it, and plans once more: the branch
// holds the plan when nothing is left to write.
func (e *env) writeBranch(ctx context.Context, j *job, inBranch *netbox.Client, fp string) (int, branchCheck, error) {
	target := inBranch.Target(j.scope)
	rb, err := reconcile.Make(ctx, target, j.desired, j.policy, j.scope)
	if err != nil {
		return 0, branchCheck{}, fmt.Errorf("plan in the branch: %w", err)
	}
	if got := rb.Plan.Fingerprint(); got != fp {
		return 0, branchCheck{}, &exitError{ExitRefused, fmt.Errorf("main changed between the plan (%s) and the branch (%s): run apply --review again", fp, got)}
	}
	if err := rb.Preflight(); err != nil {
		return 0, branchCheck{}, &exitError{ExitRefused, err}
	}
	n, err := rb.Apply(ctx)
	if err != nil {
		return n, branchCheck{}, fmt.Errorf("write the branch: %w (%s written before the failure)", err, plural.Of(n, "object"))
	}
	after, err := reconcile.Make(ctx, target, j.desired, j.policy, j.scope)
	if err != nil {
		return n, branchCheck{}, fmt.Errorf("plan in the branch after writing it: %w", err)
	}
	if left := after.Plan.Writes(); left > 0 {
		return n, branchCheck{"failure", fmt.Sprintf("%s left to write in the branch after writing it (%s)", plural.Of(left, "change"), actionCounts(after.Plan))}, nil
	}
	return n, branchCheck{"success", fmt.Sprintf("whole-plan preflight passed; the branch holds the plan %s (%s written); a plan against it is empty", fp, plural.Of(n, "object"))}, nil
}

// reviewState says where a change request stands.
func (e *env) reviewState(cr netbox.ChangeRequest) {
	state := cr.Status
	if cr.MergeBlockedReason != "" {
		state += ": " + cr.MergeBlockedReason
	}
	fmt.Fprintf(e.stderr, "change request %d is %s\n", cr.ID, state)
}

// conflictReport names what main changed under a branch under review.
func conflictReport(nb *netbox.Client, b netbox.Branch, cr netbox.ChangeRequest, hasCR bool, conflicts []netbox.Conflict) error {
	lines := make([]string, len(conflicts))
	for i, c := range conflicts {
		lines[i] = fmt.Sprintf("%s %d (%s): %s", c.ObjectType, c.ObjectID, c.Object, strings.Join(c.Fields, ", "))
	}
	where := "branch " + b.Name
	if hasCR {
		where += " (" + nb.ChangeRequestURL(cr.ID) + ")"
	}
	return fmt.Errorf("%s changed on main since %s was written, where the reviewed plan changes them too; ipsync never overwrites them:\n  %s\n"+
		"resolve it in NetBox: sync the branch acknowledging the conflicts (main's values stay) and rerun apply --review, or abandon the change request and rerun",
		plural.Of(len(conflicts), "object"), where, strings.Join(lines, "\n  "))
}
