package nautobot

import (
	"context"
	"fmt"
	"testing"

	"github.com/ipsync/ipsync/internal/nautobot/emulator"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// TestNoopPlanReadsEachPageOnce: a plan that changes nothing (List, Names
// and the checks, as reconcile.Make runs them) reads every page of every
// kind exactly once, lookups included, and nothing else; a second plan on
// the same target reads them all again, not a copy kept from the first.
func TestNoopPlanReadsEachPageOnce(t *testing.T) { servertest.Each(t, noopPlanReadsEachPageOnce) }

func noopPlanReadsEachPageOnce(t *testing.T, srv *servertest.Server) {
	const pageSize = 2
	e := newEnvOn(t, srv, func(c *Config) { c.PageSize = pageSize }, false)
	ctx := context.Background()
	objs := []resource.Object{
		&resource.Namespace{M: meta(), Name: "noop"},
		&resource.VLANGroup{M: meta(), Name: "noop-network", Location: "DC-A11"},
	}
	for i := range 3 {
		objs = append(objs, &resource.VLAN{M: meta(), Group: "noop-network", VID: uint16(100 + i), Name: fmt.Sprintf("v%d", i), Status: "Active", Tenant: "acme"})
	}
	objs = append(objs,
		&resource.Prefix{M: meta(), Namespace: "noop", Prefix: pfx("10.9.0.0/24"), Type: resource.PrefixNetwork, Status: "Active", VLAN: "noop-network/100"},
		&resource.Prefix{M: meta(), Namespace: "noop", Prefix: pfx("10.9.1.0/24"), Type: resource.PrefixNetwork, Status: "Active"})
	for i := range 3 {
		objs = append(objs, &resource.IPAddress{M: meta(), Namespace: "noop", Address: pfx(fmt.Sprintf("10.9.0.%d/24", 10+i)), Status: "Active", Tags: []string{"blue"}})
	}
	if _, err := e.c.Apply(ctx, creates(objs...)); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	pages := map[string]int{}
	total := 0
	for kind, path := range map[string]string{
		"dcim.location": pathLocations, "dcim.locationtype": pathLocationTypes, "extras.status": pathStatuses,
		"extras.role": pathRoles, "tenancy.tenant": pathTenants, "extras.tag": pathTags,
		"ipam.namespace": "/api/ipam/namespaces/", "ipam.vlangroup": "/api/ipam/vlan-groups/", "ipam.vlan": "/api/ipam/vlans/",
		"ipam.prefix": "/api/ipam/prefixes/", "ipam.ipaddress": "/api/ipam/ip-addresses/",
		"nautobot_bgp_models.autonomoussystem": "/api/plugins/bgp/autonomous-systems/",
	} {
		pages[path] = max(1, (srv.Count(t, kind)+pageSize-1)/pageSize)
		total += pages[path]
	}
	target := e.c.Target(scope.Scope{})
	want := func(context.Context, []resource.Object) ([]resource.Object, error) { return objs, nil }
	for round := range 2 {
		srv.ResetCounts()
		r, err := reconcile.Make(ctx, target, want, plan.DefaultPolicy(owner), scope.Scope{})
		if err != nil {
			t.Fatalf("round %d: Make: %v", round, err)
		}
		if len(r.Plan.Changes) != 0 || len(r.Plan.Refusals) != 0 {
			t.Fatalf("round %d: plan has %d changes and refusals %v, want none", round, len(r.Plan.Changes), r.Plan.Refusals)
		}
		for path, n := range pages {
			if got := srv.Requests("GET", path); got != n {
				t.Errorf("round %d: %d reads of %s, want %d (one per page)", round, got, path, n)
			}
		}
		if got := srv.Requests("", "/api/"); got != total {
			t.Errorf("round %d: %d requests in all, want %d: one per page of each kind", round, got, total)
		}
	}
}

// TestTargetNamesServeOnePlan: a read's names are the lookups it read
// its objects with; the next read reads them again, so that a tenant
// created since is known.
func TestTargetNamesServeOnePlan(t *testing.T) {
	e := newEnv(t, nil, false)
	ctx := context.Background()
	target := e.c.Target(scope.Scope{})
	first, err := target.Read(ctx)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	e.srv.Seed(t, emulator.SeedData{Tenants: []string{"late"}})
	if first.Names()[resource.RefTenant]["late"] {
		t.Errorf("a read knows tenant %q created after it", "late")
	}
	again, err := target.Read(ctx)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if !again.Names()[resource.RefTenant]["late"] {
		t.Errorf("the next read does not know tenant %q: it reused the lookups of an earlier read", "late")
	}
}
