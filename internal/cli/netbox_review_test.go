package cli

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/netbox/netboxtest"
)

// TestNetBoxApplyReview runs apply --review on a NetBox with
// netbox-branching and netbox-change-control, driving the people's part
// as NetBox's API lets them: the plan goes to a branch with a change
// request and its check, main untouched; a rerun opens nothing twice; the
// reviewer approves, the branch is merged, and the next plan on main is
// empty. Then a person edits on main what a review under way changes too:
// the rerun reports the conflict (exit 3) and main keeps the edit.
func TestNetBoxApplyReview(t *testing.T) {
	s, reviewerToken := netboxtest.NewReview(t)
	srv := netboxTarget(s)
	requireCheck(t, s, reviewCheck)
	dropReviews(t, s)
	t.Cleanup(func() { dropReviews(t, s) })
	examples, mount, cfg := reviewSetup(t, srv, "")
	owned := func() []string { return vlansOf(t, srv, "static:deploy") }
	vlanNamed := func(vid int) string {
		for _, v := range srv.Objects(t, "ipam.vlan") {
			if fmt.Sprint(v["vid"]) == fmt.Sprint(vid) {
				return fmt.Sprint(v["name"])
			}
		}
		return ""
	}

	v2 := withReviewVLANs(examples, "120 review-a-renamed", "122 review-c")
	mount.publish(v2)
	_, js, _ := run(t, nil, "plan", "--config", cfg, "-o", "json")
	fp := fingerprintIn(t, js)
	before := owned()
	code, out, stderr := run(t, nil, "apply", "--config", cfg, "--review", "--commit")
	if code != ExitReview || !strings.Contains(out, "/plugins/change-control/change-requests/") {
		t.Fatalf("apply --review = exit %d, want %d and the change request's URL:\n%s\n%s", code, ExitReview, out, stderr)
	}
	if got := owned(); !slices.Equal(got, before) || vlanNamed(120) != "review-a" {
		t.Errorf("main changed before the review: VLANs %v (before %v), VLAN 120 named %q", got, before, vlanNamed(120))
	}
	cr := changeRequestOf(t, s, fp)
	if cr.Status != "needs-review" || cr.ReadyToMerge {
		t.Errorf("the change request is %s, ready to merge %t: want needs-review, not ready", cr.Status, cr.ReadyToMerge)
	}
	if got := checkStatus(t, s, cr.ID, reviewCheck); got != "success" {
		t.Errorf("check %s is %q, want success", reviewCheck, got)
	}

	// A rerun of the same plan opens nothing new.
	code, out, stderr = run(t, nil, "apply", "--config", cfg, "--review", "--commit")
	if code != ExitReview || !strings.Contains(out, "awaits review") {
		t.Errorf("apply --review again = exit %d, want %d saying it awaits review:\n%s\n%s", code, ExitReview, out, stderr)
	}
	if n := len(openBranches(t, s)); n != 1 {
		t.Errorf("%d open ipsync branches after the rerun, want 1", n)
	}

	// The reviewer approves; the branch is merged; main holds the plan.
	s.CallAs(t, reviewerToken, http.MethodPost, "/api/plugins/change-control/reviews/", map[string]any{"change_request": cr.ID, "decision": "approve"}, nil)
	merge(t, s, *cr.Branch)
	if code, out, stderr := run(t, nil, "plan", "--config", cfg); code != 0 {
		t.Errorf("plan after the merge = exit %d, want 0:\n%s\n%s", code, out, stderr)
	}
	if got := owned(); !slices.Contains(got, "122") || slices.Contains(got, "121") || vlanNamed(120) != "review-a-renamed" {
		t.Errorf("after the merge main holds VLANs %v, VLAN 120 named %q; want 122 and not 121, 120 renamed", got, vlanNamed(120))
	}
	if code, out, stderr := run(t, nil, "apply", "--config", cfg, "--review", "--commit"); code != 0 {
		t.Errorf("apply --review with nothing left = exit %d, want 0:\n%s\n%s", code, out, stderr)
	}

	// A review under way, and a hand edit on main of what it changes.
	mount.publish(withReviewVLANs(examples, "120 review-a-renamed", "122 review-c2"))
	if code, out, stderr := run(t, nil, "apply", "--config", cfg, "--review", "--commit"); code != ExitReview {
		t.Fatalf("apply --review of v3 = exit %d, want %d:\n%s\n%s", code, ExitReview, out, stderr)
	}
	for _, v := range srv.Objects(t, "ipam.vlan") {
		if fmt.Sprint(v["vid"]) == "122" {
			s.Call(t, http.MethodPatch, "/api/ipam/vlans/"+idOf(v)+"/", map[string]any{"name": "by-hand"}, nil)
		}
	}
	code, out, stderr = run(t, nil, "apply", "--config", cfg, "--review", "--commit")
	if code != ExitRefused || !strings.Contains(stderr, "never overwrites") || !strings.Contains(stderr, "name") {
		t.Errorf("apply --review after a conflicting edit on main = exit %d, want %d naming the conflict:\n%s\n%s", code, ExitRefused, out, stderr)
	}
	t.Logf("the rerun after the conflicting edit:\n%s", stderr)
	if got := vlanNamed(122); got != "by-hand" {
		t.Errorf("VLAN 122 is %q on main, want the hand edit by-hand kept", got)
	}
}

// requireCheck makes the server's change-control policies require the
// check name on every change request.
func requireCheck(t *testing.T, s *netboxtest.Server, name string) {
	t.Helper()
	var page struct {
		Results []struct {
			ID int `json:"id"`
		} `json:"results"`
	}
	s.Call(t, http.MethodGet, "/api/plugins/change-control/policies/", nil, &page)
	if len(page.Results) == 0 {
		t.Fatal("the review NetBox has no change-control policy (scripts/netbox-up.sh seeds one)")
	}
	for _, p := range page.Results {
		s.Call(t, http.MethodPatch, fmt.Sprintf("/api/plugins/change-control/policies/%d/", p.ID), map[string]any{"checks": []string{name}}, nil)
	}
}

// dropReviews deletes the branches of ipsync's reviews left open, as a
// person abandoning them would, so that a test starts without them.
func dropReviews(t *testing.T, s *netboxtest.Server) {
	t.Helper()
	var page struct {
		Results []struct {
			ID     int    `json:"id"`
			Name   string `json:"name"`
			Status struct {
				Value string `json:"value"`
			} `json:"status"`
		} `json:"results"`
	}
	var crs struct {
		Results []changeRequest `json:"results"`
	}
	s.Call(t, http.MethodGet, "/api/plugins/change-control/change-requests/?limit=1000", nil, &crs)
	for _, cr := range crs.Results {
		if cr.Status != "completed" && cr.Status != "abandoned" {
			s.Call(t, http.MethodPost, fmt.Sprintf("/api/plugins/change-control/change-requests/%d/abandon/", cr.ID), map[string]any{}, nil)
		}
	}
	s.Call(t, http.MethodGet, "/api/plugins/branching/branches/?limit=1000", nil, &page)
	for _, b := range page.Results {
		if strings.HasPrefix(b.Name, "ipsync-") && b.Status.Value != "merged" {
			s.Call(t, http.MethodDelete, fmt.Sprintf("/api/plugins/branching/branches/%d/", b.ID), nil, nil)
		}
	}
}

type changeRequest struct {
	ID           int    `json:"id"`
	Branch       *int   `json:"branch"`
	Status       string `json:"status"`
	ReadyToMerge bool   `json:"ready_to_merge"`
}

// changeRequestOf is the change request ipsync opened for the plan with
// fingerprint fp (its ref).
func changeRequestOf(t *testing.T, s *netboxtest.Server, fp string) changeRequest {
	t.Helper()
	var page struct {
		Results []changeRequest `json:"results"`
	}
	s.Call(t, http.MethodGet, "/api/plugins/change-control/change-requests/?ref="+url.QueryEscape(fp), nil, &page)
	// The same plan may have been reviewed and merged before (an earlier
	// run on this server): the open one is this run's.
	open := slices.DeleteFunc(page.Results, func(cr changeRequest) bool {
		return cr.Status == "completed" || cr.Status == "abandoned" || cr.Branch == nil
	})
	if len(open) != 1 || open[0].Branch == nil {
		t.Fatalf("open change requests of the plan %s: %+v, want one with a branch", fp, open)
	}
	return open[0]
}

func checkStatus(t *testing.T, s *netboxtest.Server, crID int, name string) string {
	t.Helper()
	var page struct {
		Results []struct {
			Status string `json:"status"`
		} `json:"results"`
	}
	s.Call(t, http.MethodGet, fmt.Sprintf("/api/plugins/change-control/checks/?change_request_id=%d&name=%s", crID, name), nil, &page)
	if len(page.Results) != 1 {
		return ""
	}
	return page.Results[0].Status
}

func openBranches(t *testing.T, s *netboxtest.Server) []string {
	t.Helper()
	var page struct {
		Results []struct {
			Name   string `json:"name"`
			Status struct {
				Value string `json:"value"`
			} `json:"status"`
		} `json:"results"`
	}
	s.Call(t, http.MethodGet, "/api/plugins/branching/branches/?limit=1000", nil, &page)
	var out []string
	for _, b := range page.Results {
		if strings.HasPrefix(b.Name, "ipsync-") && b.Status.Value == "ready" {
			out = append(out, b.Name)
		}
	}
	return out
}

// merge merges a branch as its reviewer would, and waits for the job.
func merge(t testing.TB, s *netboxtest.Server, branch int) {
	t.Helper()
	var job struct {
		ID int `json:"id"`
	}
	s.Call(t, http.MethodPost, fmt.Sprintf("/api/plugins/branching/branches/%d/merge/", branch), map[string]any{"commit": true}, &job)
	deadline := time.Now().Add(30 * time.Minute)
	for time.Now().Before(deadline) {
		var st struct {
			Status struct {
				Value string `json:"value"`
			} `json:"status"`
			Error string `json:"error"`
		}
		s.Call(t, http.MethodGet, fmt.Sprintf("/api/core/jobs/%d/?fields=status,error", job.ID), nil, &st)
		switch st.Status.Value {
		case "completed":
			return
		case "errored", "failed":
			t.Fatalf("merge of branch %d: %s", branch, st.Error)
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("merge of branch %d not done after 30 minutes", branch)
}
