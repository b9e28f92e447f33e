package reconcile

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/memory"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// A saved plan is checked whole again at apply, like a fresh one: what it
// refers to but does not touch may be gone since, and then nothing of it
// is written.
func TestSavedPlanRechecksReferences(t *testing.T) {
	ctx := context.Background()
	site := resource.NeutronOwner("a11")
	static := resource.Owner("static:dc")
	group := &resource.VLANGroup{M: resource.Meta{Owner: static}, Name: "g"}
	ns := &resource.Namespace{Name: "a11"}
	withTenant := map[resource.Kind]map[string]bool{resource.RefTenant: {"t1": true}}
	desired := []resource.Object{
		&resource.VLAN{M: resource.Meta{Owner: site}, Group: "g", VID: 150, Name: "private-1", Status: "Active"},
		&resource.Prefix{M: resource.Meta{Owner: site}, Namespace: "a11", Prefix: netip.MustParsePrefix("10.0.0.0/24"),
			VLAN: "g/150", Tenant: "t1", Status: "Active"},
	}
	tests := []struct {
		name string
		now  namedStore // the target at apply
		want string
	}{
		{"the VLAN group is deleted", namedStore{Store: memory.New(ns), names: withTenant}, "vlan_group"},
		{"the tenant is deleted", namedStore{Store: memory.New(ns, group), names: map[resource.Kind]map[string]bool{resource.RefTenant: {}}}, "tenant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Plan(ctx, desired, namedStore{Store: memory.New(ns, group), names: withTenant}, plan.DefaultPolicy(site))
			if err != nil || len(r.Plan.Refusals) != 0 {
				t.Fatalf("Plan = %v, refusals %q; want an applicable plan", err, r.Plan.Refusals)
			}
			again, err := Saved(ctx, r.Plan, tt.now)
			if err != nil {
				t.Fatal(err)
			}
			n, err := again.Apply(ctx)
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Apply of the saved plan = %v, want a refusal about the %s", err, tt.want)
			}
			if objs, _ := tt.now.List(ctx); n != 0 || len(objs) > 2 {
				t.Errorf("Apply of the saved plan wrote %d objects (%d now), want none", n, len(objs))
			}
		})
	}
}
