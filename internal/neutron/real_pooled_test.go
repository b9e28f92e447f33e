package neutron

import (
	"context"
	"fmt"
	"net/netip"
	"testing"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
)

// TestRealSubnetFromSpecPool: a subnet Neutron allocates from a spec pool
// (a prefix length asked for, no CIDR) maps to the source of truth as a
// prefix owned by the site, like a subnet given its CIDR, in both IP
// versions; the pools themselves never map, and the
// subnets change nothing in the pools' next plan.
func TestRealSubnetFromSpecPool(t *testing.T) {
	a, r := realReader(t)
	run := newRunID()
	ctx := context.Background()
	w := NewPoolWriter(r, PoolConfig{Site: "it"}, discard())
	t.Cleanup(func() { removeRun(t, a, run.name) })
	me := resource.StaticOwner("it-spec")
	v4 := netip.MustParsePrefix(fmt.Sprintf("10.%d.64.0/22", run.octet))
	v6 := netip.MustParsePrefix(fmt.Sprintf("2001:db8:%s::/56", run.hex))
	pools := []*resource.SubnetPool{
		{M: resource.Meta{Owner: me}, Name: run.name + "-v4", Namespace: run.name, Prefixes: []netip.Prefix{v4}, DefaultPrefixLen: 26, MinPrefixLen: 24, MaxPrefixLen: 28},
		{M: resource.Meta{Owner: me}, Name: run.name + "-v6", Namespace: run.name, Prefixes: []netip.Prefix{v6}, DefaultPrefixLen: 64, MinPrefixLen: 64},
	}
	apply := func() int {
		t.Helper()
		res, err := reconcile.Plan(ctx, PoolObjects("it", pools), w, plan.DefaultPolicy(me))
		if err != nil {
			t.Fatalf("plan: %v", err)
		}
		n, err := res.Apply(ctx)
		if err != nil {
			t.Fatalf("apply: %v", err)
		}
		return n
	}
	if n := apply(); n != 4 {
		t.Fatalf("apply of two pools wrote %d objects, want 4 (two scopes, two pools)", n)
	}
	poolID := func(name string) string {
		t.Helper()
		var out struct {
			Pools []map[string]any `json:"subnetpools"`
		}
		a.call("GET", "/subnetpools?name="+name, nil, &out)
		if len(out.Pools) != 1 {
			t.Fatalf("Neutron holds %d pools named %s, want 1", len(out.Pools), name)
		}
		return str(out.Pools[0], "id")
	}

	network := a.create("networks", map[string]any{"name": run.name + "-pooled"})
	netID := str(network, "id")
	fromV4 := a.create("subnets", map[string]any{"network_id": netID, "ip_version": 4, "name": run.name + "-from-v4",
		"subnetpool_id": poolID(run.name + "-v4"), "prefixlen": 27})
	fromV6 := a.create("subnets", map[string]any{"network_id": netID, "ip_version": 6, "name": run.name + "-from-v6",
		"subnetpool_id": poolID(run.name + "-v6")}) // the pool's default length
	// Neutron allocates the subnets of one network and IP version from one
	// pool, so the subnet given its CIDR is on a network of its own.
	plain := a.create("networks", map[string]any{"name": run.name + "-plain"})
	byHand := a.create("subnets", map[string]any{"network_id": str(plain, "id"), "ip_version": 4, "name": run.name + "-by-hand",
		"cidr": fmt.Sprintf("10.%d.200.0/24", run.octet)})

	cidr := func(s map[string]any, in netip.Prefix, bits int) netip.Prefix {
		t.Helper()
		p, err := netip.ParsePrefix(str(s, "cidr"))
		if err != nil {
			t.Fatalf("subnet %s has CIDR %q: %v", str(s, "id"), str(s, "cidr"), err)
		}
		if !resource.Covers([]netip.Prefix{in}, p) || p.Bits() != bits || str(s, "subnetpool_id") == "" {
			t.Errorf("subnet %s = %s from pool %q, want a /%d inside %s from the spec pool", str(s, "id"), p, str(s, "subnetpool_id"), bits, in)
		}
		return p
	}
	p4, p6 := cidr(fromV4, v4, 27), cidr(fromV6, v6, 64)
	hand := netip.MustParsePrefix(str(byHand, "cidr"))

	snap, err := r.Read(ctx)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	objs, _ := Map(snap, MapConfig{Site: "it"})
	mapped := map[netip.Prefix]*resource.Prefix{}
	for _, o := range objs {
		switch x := o.(type) {
		case *resource.Prefix:
			mapped[x.Prefix] = x
		case *resource.SubnetPool, *resource.AddressScope:
			t.Errorf("Map yields %s: pools and scopes are the spec's, never the source of truth's from Neutron", o.Key())
		}
	}
	ref := mapped[hand]
	if ref == nil {
		t.Fatalf("Map lacks the subnet given its CIDR, %s", hand)
	}
	if ref.M.Owner != resource.NeutronOwner("it") || ref.Namespace != "it" {
		t.Errorf("the subnet given its CIDR maps to owner %q, namespace %q; want neutron:it in namespace it", ref.M.Owner, ref.Namespace)
	}
	for _, p := range []netip.Prefix{p4, p6} {
		got := mapped[p]
		if got == nil {
			t.Errorf("Map lacks the subnet %s Neutron allocated from a spec pool", p)
			continue
		}
		if got.M.Owner != resource.NeutronOwner("it") || got.Namespace != ref.Namespace || got.Type != ref.Type ||
			got.Status != ref.Status || got.Tenant != ref.Tenant || got.VLAN == "" {
			t.Errorf("pooled subnet maps to %+v, want it mapped like the subnet given its CIDR, %+v, with its network's VLAN", got, ref)
		}
	}
	if a, b := mapped[p4], mapped[p6]; a != nil && b != nil && a.VLAN != b.VLAN {
		t.Errorf("the pooled subnets of one network map to VLANs %s and %s, want one", a.VLAN, b.VLAN)
	}

	if n := apply(); n != 0 {
		t.Errorf("with subnets allocated from the pools a rerun wrote %d objects, want 0", n)
	}
	a.remove("subnets", str(fromV4, "id"))
	a.remove("subnets", str(fromV6, "id"))
}
