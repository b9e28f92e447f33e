package sitesync

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/statefile"
)

// TestResumeFollowsOnFromSavedState: a Syncer that saved its state and a
// new one, in a new process with a new client, that resumes from it read
// the target by its change log since, not whole, and still plan exactly:
// a Neutron change and a hand edit made while none ran are written, and
// a sweep afterwards finds nothing left and nothing missed.
func TestResumeFollowsOnFromSavedState(t *testing.T) {
	eachTargetOf(t, servertest.Each, func(t *testing.T, g realTarget) {
		ctx := context.Background()
		owner := resource.NeutronOwner("a11")
		g.seedSite(t, "resume-test", "a11", "a11-12-network")
		sc := scope.Site(owner, "a11", []string{"a11-12-network"})
		src := &fakeNeutron{snap: snapshot("n1")}
		cfg := Config{Map: neutron.MapConfig{Site: "a11", Namespace: "a11"}, Policy: randomSitePolicy(owner), Notified: true, Scope: sc}
		cfg.Rescope = rescopeOf(g.target)
		s := newTestSyncer(cfg, src, g.target(sc))
		if _, err := s.Sync(ctx, Request{Sweep: true}); err != nil {
			t.Fatalf("sweep: %v", err)
		}
		saved, view, err := s.Save()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "a11.state.json")
		header := statefile.Header{Format: statefile.Format, Version: "test", Site: "a11", Owner: string(owner), Target: "t"}
		if err := statefile.Save(path, &statefile.State{Header: header, SavedAt: time.Now(), Scope: statefile.ScopeOf(saved), View: view}); err != nil {
			t.Fatal(err)
		}

		// While no agent runs: n2 comes to Neutron, and a person edits
		// one of the site's addresses.
		src.snap = snapshot("n1", "n2")
		var ips struct {
			Results []struct {
				ID any `json:"id"`
			} `json:"results"`
		}
		if err := g.call(ctx, http.MethodGet, "/api/ipam/ip-addresses/", url.Values{"cf_ipsync_owner": {string(owner)}}, nil, &ips); err != nil || len(ips.Results) == 0 {
			t.Fatalf("the site's addresses: %v, %d", err, len(ips.Results))
		}
		if err := g.call(ctx, http.MethodPatch, fmt.Sprintf("/api/ipam/ip-addresses/%v/", ips.Results[0].ID), nil, map[string]any{"description": "while stopped"}, nil); err != nil {
			t.Fatal(err)
		}

		st, err := statefile.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Usable(header, sc, time.Now(), changelog.MaxGap); err != nil {
			t.Fatal(err)
		}
		cfg.Rescope = rescopeOf(g.fresh)
		resumed := newTestSyncer(cfg, src, g.fresh(sc))
		if err := resumed.Resume(ctx, st.Scope.Scope(), st.View); err != nil {
			t.Fatalf("Resume: %v", err)
		}
		whole := src.full
		out, err := resumed.Sync(ctx, Request{Full: true, NeutronWhole: true})
		if err != nil {
			t.Fatalf("first sync after resuming: %v", err)
		}
		if out.Whole["target"] || src.full != whole+1 {
			t.Errorf("first sync after resuming read the target whole %v and Neutron whole %d times; want the target by its log, Neutron once",
				out.Whole["target"], src.full-whole)
		}
		// n2's VLAN, prefix and address, and the edited address put back.
		if out.Writes != 4 {
			t.Errorf("first sync after resuming wrote %d objects, want 4: %v", out.Writes, out.Plan)
		}
		out, err = resumed.Sync(ctx, Request{Sweep: true})
		if err != nil {
			t.Fatal(err)
		}
		if out.Writes > 0 || len(out.Misses["target"])+len(out.Misses["neutron"]) > 0 {
			t.Errorf("the sweep after resuming wrote %d objects and found missed %v", out.Writes, out.Misses)
		}
	})
}
