package sitesync

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// racingTarget runs before ahead of every Apply: a change landing in the
// target between the read a plan was made on and its write.
type racingTarget struct {
	reconcile.Target
	before func()
}

func (r racingTarget) Read(ctx context.Context) (reconcile.State, error) {
	st, err := r.Target.Read(ctx)
	if err != nil {
		return nil, err
	}
	return racingState{st, r.before}, nil
}

type racingState struct {
	reconcile.State
	before func()
}

func (r racingState) Apply(ctx context.Context, changes []plan.Change) (int, error) {
	if r.before != nil {
		r.before()
	}
	return r.State.Apply(ctx, changes)
}

// TestNoWriteOverAnotherOwnersObject: a VLAN handed to another owner after
// the plan that deletes it was made, or that updates it, is neither
// deleted nor written over; the rest of the plan is written, and the sync
// says what it left.
func TestNoWriteOverAnotherOwnersObject(t *testing.T) {
	eachTargetOf(t, servertest.Each, func(t *testing.T, g realTarget) {
		ctx := context.Background()
		owner := resource.NeutronOwner("a11")
		g.seedSite(t, "foreign-test", "a11", "a11-12-network")
		handOver := func(vid int) {
			t.Helper()
			var vlans struct {
				Results []map[string]any `json:"results"`
			}
			if err := g.call(ctx, http.MethodGet, "/api/ipam/vlans/", url.Values{"vid": {fmt.Sprint(vid)}}, nil, &vlans); err != nil || len(vlans.Results) != 1 {
				t.Fatalf("find vlan %d: %v (%d found)", vid, err, len(vlans.Results))
			}
			if err := g.call(ctx, http.MethodPatch, fmt.Sprintf("/api/ipam/vlans/%v/", vlans.Results[0]["id"]), nil,
				map[string]any{"custom_fields": map[string]any{"ipsync_owner": "static:other"}}, nil); err != nil {
				t.Fatalf("hand vlan %d to static:other: %v", vid, err)
			}
		}
		src := &fakeNeutron{snap: snapshot("n1", "n2")}
		target := &racingTarget{Target: g.target(scope.Site(owner, "a11", []string{"a11-12-network"}))}
		s := newTestSyncer(Config{Map: neutron.MapConfig{Site: "a11", Namespace: "a11"}, Policy: randomSitePolicy(owner)}, src, target)
		if _, err := s.Sync(ctx, Request{Sweep: true}); err != nil {
			t.Fatalf("sweep: %v", err)
		}

		// n2 goes from Neutron, n1 is renamed; as the plan is written, n2's
		// VLAN (151) and n1's (150) are handed to another owner.
		src.snap = snapshot("n1")
		src.snap.Networks[0].Name = "tenant-1-renamed"
		target.before = func() { handOver(151); handOver(150) }
		out, err := s.Sync(ctx, Request{})
		target.before = nil
		if err == nil || !strings.Contains(err.Error(), "owner changed since the plan was made") {
			t.Fatalf("sync over VLANs handed to another owner: %v, want them refused as another owner's", err)
		}
		if out.Writes != 2 {
			t.Errorf("sync wrote %d objects, want n2's prefix and address deleted and nothing else", out.Writes)
		}
		for _, vid := range []int{150, 151} {
			var vlans struct {
				Results []struct {
					Name         string         `json:"name"`
					CustomFields map[string]any `json:"custom_fields"`
				} `json:"results"`
			}
			if err := g.call(ctx, http.MethodGet, "/api/ipam/vlans/", url.Values{"vid": {fmt.Sprint(vid)}}, nil, &vlans); err != nil {
				t.Fatal(err)
			}
			if len(vlans.Results) != 1 || vlans.Results[0].CustomFields["ipsync_owner"] != "static:other" || strings.Contains(vlans.Results[0].Name, "renamed") {
				t.Errorf("vlan %d after the sync: %+v, want it as static:other has it", vid, vlans.Results)
			}
		}
	})
}
