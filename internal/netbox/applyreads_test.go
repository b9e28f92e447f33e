package netbox

import (
	"context"
	"log/slog"
	"net/http"
	"testing"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sot"
)

// TestApplyReadsOnlyTheMarker: an apply writes through the read its plan
// was made (or, for a saved plan, checked) on: it sends its writes, and
// reads the marker tag and the custom fields as they are now, nothing
// else, whichever client made the plan.
func TestApplyReadsOnlyTheMarker(t *testing.T) {
	e := realEnv(t, nil, false)
	ctx := context.Background()
	seed := []resource.Object{&resource.Namespace{M: meta(), Name: "site"}, &resource.VLANGroup{M: meta(), Name: "leafs", Location: "a11"}}
	if _, err := e.c.Apply(ctx, creates(seed...)); err != nil {
		t.Fatal(err)
	}
	sc := scope.Scope{Owner: owner, Namespaces: []string{"site"}, VLANGroups: []string{"leafs"}}
	desired := append(seed,
		&resource.VLAN{M: meta(), Group: "leafs", VID: 100, Name: "net-100", Status: "Active", Role: "tenant-net", Tenant: "acme"},
		&resource.Prefix{M: meta(), Namespace: "site", Prefix: pfx("10.0.1.0/24"), Type: resource.PrefixNetwork, Status: "Active", VLAN: resource.VLANKey("leafs", 100)},
		&resource.IPAddress{M: meta(), Namespace: "site", Address: pfx("10.0.1.5/24"), Status: "Reserved", Tenant: "acme"})
	for _, tc := range []struct {
		name string
		read bool // the applying client made the plan
	}{
		{name: "planned by this client", read: true},
		{name: "a saved plan in a new process"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(Config{Settings: sot.Settings{URL: e.s.URL(), Token: e.s.Token()}}, slog.New(slog.DiscardHandler), sot.WithHTTPClient(e.s.Client()))
			if err != nil {
				t.Fatal(err)
			}
			planner := e.c
			if tc.read {
				planner = c
			}
			made, err := planner.Target(sc).Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			p := plan.Make(desired, made.Objects(), plan.DefaultPolicy(owner))
			// As reconcile.Saved does, the applying client reads the
			// target (objects and lookups) and writes through that read.
			st, err := c.Target(sc).Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			e.s.ResetCounts()
			if _, err := st.Apply(ctx, p.Changes); err != nil {
				t.Fatalf("Apply: %v", err)
			}
			reads := e.s.Requests(http.MethodGet, "/api/") + e.s.Requests(http.MethodOptions, "/api/")
			if reads != 2 {
				t.Errorf("apply of %d creates read in %d requests, want 2: the marker tag and the custom fields", len(p.Changes), reads)
			}
			after, err := c.List(ctx, sc)
			if err != nil {
				t.Fatal(err)
			}
			if left := plan.Make(desired, after, plan.DefaultPolicy(owner)); len(left.Changes) != 0 {
				t.Errorf("after the apply the plan still has %d changes: %v", len(left.Changes), left.Changes)
			}
			var gone []plan.Change
			for _, o := range after {
				if o.Kind() != resource.KindNamespace && o.Kind() != resource.KindVLANGroup {
					gone = append(gone, remove(o))
				}
			}
			if _, err := c.Apply(ctx, gone); err != nil {
				t.Fatal(err)
			}
		})
	}
}
