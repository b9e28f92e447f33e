package sitesync

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/nautobot"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sot"
)

// TestRefusalFixedInTargetIsNotRepeated: a plan refused because the
// site's status may not be used on IP addresses goes through once the
// operator allows it in Nautobot, at the next sync that follows the change
// log, not a day later at the sweep. The change keeps the status's name,
// which is all the log tells of it. (NetBox's statuses are choices that
// its configuration sets, outside its change log.)
func TestRefusalFixedInTargetIsNotRepeated(t *testing.T) {
	servertest.Each(t, func(t *testing.T, srv *servertest.Server) {
		ctx := context.Background()
		c, err := nautobot.New(nautobot.Config{Settings: sot.Settings{URL: srv.URL(), Token: srv.Token()}}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		g := newRealTarget(t, c, "content_types", func(sc scope.Scope) reconcile.Target { return c.Target(sc) })
		owner := resource.NeutronOwner("a11")
		g.seedSite(t, "refusal-test", "a11", "a11-12-network")
		// The operator's status, not yet allowed on IP addresses.
		status := fmt.Sprintf("ipsync-refusal-%d", time.Now().UnixNano()%1_000_000)
		var made struct {
			ID string `json:"id"`
		}
		if err := g.call(ctx, http.MethodPost, "/api/extras/statuses/", nil,
			map[string]any{"name": status, "color": "4caf50", "content_types": []string{"ipam.vlan", "ipam.prefix"}}, &made); err != nil {
			t.Fatalf("create status %s: %v", status, err)
		}
		t.Cleanup(func() {
			if !srv.Real() {
				return
			}
			srv.Reset(t) // the objects that use the status first
			if err := g.call(ctx, http.MethodDelete, "/api/extras/statuses/"+made.ID+"/", nil, nil, nil); err != nil {
				t.Errorf("delete status %s: %v", status, err)
			}
		})

		noPorts := snapshot("n1")
		noPorts.Ports = nil
		src := &fakeNeutron{snap: noPorts}
		s := newTestSyncer(Config{Map: neutron.MapConfig{Site: "a11", Namespace: "a11", Status: status}, Policy: plan.DefaultPolicy(owner), Notified: true},
			src, g.target(scope.Site(owner, "a11", []string{"a11-12-network"})))
		if _, err := s.Sync(ctx, Request{Sweep: true}); err != nil {
			t.Fatalf("sweep: %v", err)
		}

		// Ports come to n1: their addresses are refused.
		src.snap = snapshot("n1")
		if _, err := s.Sync(ctx, Request{Networks: []string{"n1"}}); err == nil || !strings.Contains(err.Error(), "may not be used on ipam.ipaddress") {
			t.Fatalf("sync of n1 with %s not allowed on IP addresses: %v, want the plan refused for that", status, err)
		}

		if err := g.call(ctx, http.MethodPatch, "/api/extras/statuses/"+made.ID+"/", nil,
			map[string]any{"content_types": []string{"ipam.vlan", "ipam.prefix", "ipam.ipaddress"}}, nil); err != nil {
			t.Fatalf("allow %s on IP addresses: %v", status, err)
		}
		out, err := s.Sync(ctx, Request{Networks: []string{"n1"}})
		if err != nil {
			t.Fatalf("sync of n1 after %s was allowed on IP addresses: %v", status, err)
		}
		if out.Writes != 2 || out.Whole["target"] {
			t.Errorf("sync of n1 after the fix: %d writes, target read whole %v; want n1's 2 addresses, following the change log", out.Writes, out.Whole["target"])
		}
	})
}
