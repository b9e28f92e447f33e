package neutron

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
)

// TestRealSubnetPools walks a spec pool through its life on a real
// Neutron: created with its address scope, a rerun that writes nothing,
// widened, refused a shrink below an allocated subnet and a delete while
// the subnet is there, a hand-made pool over its prefix refused, and its
// scope kept while a hand-made pool uses it.
func TestRealSubnetPools(t *testing.T) {
	a, r := realReader(t)
	run := newRunID()
	ctx := context.Background()
	w := NewPoolWriter(r, PoolConfig{Site: "it"}, discard())
	t.Cleanup(func() { removeRun(t, a, run.name) })
	me := resource.StaticOwner("it-spec")
	net := func(third int) netip.Prefix {
		return netip.MustParsePrefix(fmt.Sprintf("10.%d.%d.0/24", run.octet, third))
	}
	pool := func(name string, ps ...netip.Prefix) *resource.SubnetPool {
		return &resource.SubnetPool{M: resource.Meta{Owner: me}, Name: run.name + "-" + name, Namespace: run.name,
			Prefixes: resource.MergePrefixes(ps), DefaultPrefixLen: 26, Description: "tenant subnets"}
	}
	planOf := func(pools ...*resource.SubnetPool) *reconcile.Result {
		t.Helper()
		res, err := reconcile.Plan(ctx, PoolObjects("it", pools), w, plan.DefaultPolicy(me))
		if err != nil {
			t.Fatalf("plan: %v", err)
		}
		return res
	}
	apply := func(pools ...*resource.SubnetPool) int {
		t.Helper()
		n, err := planOf(pools...).Apply(ctx)
		if err != nil {
			t.Fatalf("apply: %v", err)
		}
		return n
	}
	refused := func(want []string, pools ...*resource.SubnetPool) {
		t.Helper()
		err := planOf(pools...).Preflight()
		if err == nil {
			t.Fatalf("plan of %d pools was not refused, want a refusal naming %q", len(pools), want)
		}
		for _, s := range want {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("refusal %q does not name %q", err, s)
			}
		}
	}
	neutronPool := func(name string) map[string]any {
		t.Helper()
		var out struct {
			Pools []map[string]any `json:"subnetpools"`
		}
		a.call(http.MethodGet, "/subnetpools?name="+run.name+"-"+name, nil, &out)
		if len(out.Pools) != 1 {
			t.Fatalf("Neutron holds %d pools named %s-%s, want 1", len(out.Pools), run.name, name)
		}
		return out.Pools[0]
	}

	p := pool("a", net(0))
	if n := apply(p); n != 2 {
		t.Errorf("first apply wrote %d objects, want 2 (the scope and the pool)", n)
	}
	got := neutronPool("a")
	if fmt.Sprint(got["prefixes"]) != fmt.Sprintf("[%s]", net(0)) || !strings.Contains(fmt.Sprint(got["tags"]), "ipsync_owner=static:it-spec") {
		t.Errorf("pool in Neutron = %v, want prefixes [%s] and the owner tag", got, net(0))
	}
	var scope struct {
		Scope map[string]any `json:"address_scope"`
	}
	a.call(http.MethodGet, "/address-scopes/"+str(got, "address_scope_id"), nil, &scope)
	if want := run.name + " (ipsync_owner=static:it-spec)"; str(scope.Scope, "name") != want {
		t.Errorf("address scope name = %q, want %q", str(scope.Scope, "name"), want)
	}
	if n := apply(p); n != 0 {
		t.Errorf("rerun wrote %d objects, want 0", n)
	}

	wide := pool("a", net(0), net(1))
	if n := apply(wide); n != 1 {
		t.Errorf("widening wrote %d objects, want 1", n)
	}
	if got := fmt.Sprint(neutronPool("a")["prefixes"]); got != fmt.Sprintf("[10.%d.0.0/23]", run.octet) {
		t.Errorf("widened pool's prefixes = %s, want [10.%d.0.0/23]", got, run.octet)
	}
	if n := apply(wide); n != 0 {
		t.Errorf("rerun after widening wrote %d objects, want 0", n)
	}

	network := a.create("networks", map[string]any{"name": run.name + "-net"})
	sub := a.create("subnets", map[string]any{"network_id": str(network, "id"), "ip_version": 4,
		"subnetpool_id": str(neutronPool("a"), "id"), "prefixlen": 26})
	subnetNamed := []string{str(sub, "id"), str(sub, "cidr"), str(network, "id")}
	refused(subnetNamed, pool("a", net(1)))
	refused(subnetNamed)

	hand := a.create("subnetpools", map[string]any{"name": run.name + "-hand", "prefixes": []string{net(2).String()}})
	refused([]string{run.name + "-hand", str(hand, "id"), "made by hand"}, wide, pool("b", net(2)))
	a.remove("subnetpools", str(hand, "id"))

	a.remove("subnets", str(sub, "id"))
	inScope := a.create("subnetpools", map[string]any{"name": run.name + "-in-scope", "prefixes": []string{net(3).String()},
		"address_scope_id": str(neutronPool("a"), "address_scope_id")})
	refused([]string{"used by subnet pools", run.name + "-in-scope", str(inScope, "id")})
	a.remove("subnetpools", str(inScope, "id"))
	if n := apply(); n != 2 {
		t.Errorf("removing the pool from the spec wrote %d objects, want 2 (the pool, then its scope)", n)
	}
}

// removeRun deletes the pools, then the address scopes, a run left behind.
func removeRun(t *testing.T, a *admin, run string) {
	var pools struct {
		Pools []map[string]any `json:"subnetpools"`
	}
	a.call(http.MethodGet, "/subnetpools", nil, &pools)
	for _, p := range pools.Pools {
		if strings.HasPrefix(str(p, "name"), run) {
			a.remove("subnetpools", str(p, "id"))
		}
	}
	var scopes struct {
		Scopes []map[string]any `json:"address_scopes"`
	}
	a.call(http.MethodGet, "/address-scopes", nil, &scopes)
	for _, s := range scopes.Scopes {
		if strings.HasPrefix(str(s, "name"), run) {
			a.remove("address-scopes", str(s, "id"))
		}
	}
}
