package sitesync

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/serverstall"
)

// TestAgentLostAnswerNotDuplicated: an agent's sync whose creates of
// VLANs, prefixes and addresses lose their answers while the server has
// yet to write them takes the apply's path: nothing is written twice, the
// sync reports every object written, and the next sweep finds the site as
// Neutron has it with nothing to write.
func TestAgentLostAnswerNotDuplicated(t *testing.T) {
	eachTargetOf(t, servertest.Each, func(t *testing.T, g realTarget) {
		ctx := context.Background()
		owner := resource.NeutronOwner("a11")
		g.seedSite(t, "lost-test", "a11", "a11-12-network")
		hold := &serverstall.HoldFirst{Paths: []string{"/api/ipam/vlans/", "/api/ipam/prefixes/", "/api/ipam/ip-addresses/"}, Hold: 2 * time.Second}
		target := g.through(func(next http.RoundTripper) http.RoundTripper { hold.Next = next; return hold })
		src := &fakeNeutron{snap: snapshot("n1", "n2")}
		s := newTestSyncer(Config{Map: neutron.MapConfig{Site: "a11", Namespace: "a11"}, Policy: randomSitePolicy(owner)}, src,
			target(scope.Site(owner, "a11", []string{"a11-12-network"})))
		out, err := s.Sync(ctx, Request{Sweep: true})
		hold.Wait()
		if err != nil {
			t.Fatalf("sync: %v", err)
		}
		if hold.Held() != len(hold.Paths) {
			t.Fatalf("%d of the %d creates lost their answers", hold.Held(), len(hold.Paths))
		}
		// Two networks: a VLAN, a prefix and their ports' addresses each.
		if out.Writes != 7 {
			t.Errorf("sync wrote %d objects, want 7", out.Writes)
		}
		for path, want := range map[string]int{"/api/ipam/vlans/": 2, "/api/ipam/prefixes/": 2, "/api/ipam/ip-addresses/": 3} {
			var page struct {
				Count int `json:"count"`
			}
			if err := g.call(ctx, http.MethodGet, path, url.Values{"cf_ipsync_owner": {string(owner)}, "limit": {"1"}}, nil, &page); err != nil {
				t.Fatal(err)
			}
			if page.Count != want {
				t.Errorf("%s holds %d objects of %s, want %d", path, page.Count, owner, want)
			}
		}
		again, err := s.Sync(ctx, Request{Sweep: true})
		if err != nil || again.Writes != 0 || len(again.Misses["target"]) != 0 {
			t.Errorf("sweep after the sync: %v, wrote %d, missed %v; want nothing", err, again.Writes, again.Misses["target"])
		}
	})
}
