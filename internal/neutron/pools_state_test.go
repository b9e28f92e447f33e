package neutron

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

const (
	specOwner  = resource.Owner("static:deploy")
	otherOwner = resource.Owner("static:other")
)

// statePool is a pool as a read of Neutron has it.
func statePool(id, name string, owner resource.Owner, ns string, shared bool, ps ...string) *resource.SubnetPool {
	var pp []netip.Prefix
	for _, s := range ps {
		pp = append(pp, netip.MustParsePrefix(s))
	}
	return &resource.SubnetPool{M: resource.Meta{ID: id, Owner: owner, Version: "1"}, Name: name, Site: "a11", Namespace: ns,
		Prefixes: resource.MergePrefixes(pp), Shared: shared}
}

// specPool is a pool as the spec wants it.
func specPool(name, ns string, shared bool, ps ...string) *resource.SubnetPool {
	p := statePool("", name, specOwner, ns, shared, ps...)
	p.M = resource.Meta{Owner: specOwner}
	return p
}

func stateScope(id, ns string, owner resource.Owner) *resource.AddressScope {
	return &resource.AddressScope{M: resource.Meta{ID: id, Owner: owner}, Namespace: ns, IPVersion: 4, Site: "a11"}
}

// testPoolState is a read of a site's Neutron holding:
//   - scope s-a11 (ipsync's, namespace a11) with pool p-tenant
//     (10.11.128.0/23, ipsync's, two subnets allocated: one in each /24)
//     and pool p-hand-in (10.11.140.0/24, made by hand);
//   - pool p-empty (10.11.150.0/24, ipsync's, no subnets) in scope s-a11 too;
//   - pool p-hand (10.20.0.0/16, made by hand, no scope) and p-other
//     (10.30.0.0/16, another owner's, no scope).
func testPoolState() *poolState {
	tenant := statePool("p-tenant", "a11-tenant", specOwner, "a11", false, "10.11.128.0/23")
	handIn := statePool("p-hand-in", "a11-hand-in", "", "a11", false, "10.11.140.0/24")
	empty := statePool("p-empty", "a11-empty", specOwner, "a11", false, "10.11.150.0/24")
	hand := statePool("p-hand", "lab", "", "", false, "10.20.0.0/16")
	other := statePool("p-other", "b-pool", otherOwner, "", false, "10.30.0.0/16")
	scope := stateScope("s-a11", "a11", specOwner)
	return &poolState{
		objs:     []resource.Object{scope, tenant, handIn, empty, hand, other},
		scopeIDs: map[string]string{"a11/v4": "s-a11"},
		pools:    []*resource.SubnetPool{tenant, handIn, empty, hand, other},
		poolsIn:  map[string][]*resource.SubnetPool{"s-a11": {tenant, handIn, empty}},
		subnets: map[string][]wirePooled{"p-tenant": {
			{ID: "sub-1", CIDR: "10.11.128.0/26", NetworkID: "net-1", SubnetPoolID: "p-tenant"},
			{ID: "sub-2", CIDR: "10.11.129.64/26", NetworkID: "net-2", SubnetPoolID: "p-tenant"},
		}},
	}
}

func TestPoolStateCheck(t *testing.T) {
	st := testPoolState()
	cur := func(name string) *resource.SubnetPool {
		for _, p := range st.pools {
			if p.Name == name {
				return p
			}
		}
		t.Fatalf("no pool %s in the test state", name)
		return nil
	}
	create := func(d *resource.SubnetPool) plan.Change {
		return plan.Change{Action: plan.Create, Key: d.Key(), Desired: d}
	}
	update := func(d *resource.SubnetPool) plan.Change {
		return plan.Change{Action: plan.Update, Key: d.Key(), Desired: d, Current: cur(d.Name)}
	}
	del := func(name string) plan.Change {
		c := cur(name)
		return plan.Change{Action: plan.Delete, Key: c.Key(), Current: c}
	}
	scopeDelete := plan.Change{Action: plan.Delete, Key: resource.Key{Kind: resource.KindAddressScope, Name: "a11/v4"}, Current: st.objs[0]}
	tests := []struct {
		name   string
		change plan.Change
		others []plan.Change // the rest of the plan
		want   []string      // parts of the refusal; none: allowed
		not    []string      // what the refusal must not name
	}{
		{name: "new pool clear of every other", change: create(specPool("new", "a11", false, "10.11.160.0/24"))},
		{name: "new pool over a hand-made pool", change: create(specPool("new", "a11", false, "10.20.5.0/24")),
			want: []string{"10.20.5.0/24 overlaps 10.20.0.0/16", `subnet pool "lab"`, "p-hand", "made by hand"}},
		{name: "new pool around another owner's", change: create(specPool("new", "", false, "10.0.0.0/8")),
			want: []string{"10.0.0.0/8 overlaps", `"b-pool"`, "p-other", "owned by static:other", `"lab"`, `"a11-tenant"`}},
		{name: "new pool over one of ipsync's own of another name", change: create(specPool("new", "a11", false, "10.11.128.0/24")),
			want: []string{`"a11-tenant"`, "p-tenant", "owned by static:deploy"}},
		{name: "a pool does not overlap itself", change: update(specPool("a11-tenant", "a11", false, "10.11.128.0/22"))},
		{name: "widened", change: update(specPool("a11-tenant", "a11", false, "10.11.128.0/23", "10.11.132.0/24"))},
		{name: "prefixes given in halves are no shrink", change: update(specPool("a11-tenant", "a11", false, "10.11.129.0/24", "10.11.128.0/24"))},
		{name: "shrink stranding one subnet", change: update(specPool("a11-tenant", "a11", false, "10.11.128.0/24")),
			want: []string{"drops 10.11.128.0/23", `"a11-tenant"`, "only ever adds prefixes", "1 subnets", "sub-2 (10.11.129.64/26, network net-2)"},
			not:  []string{"sub-1"}},
		{name: "moved stranding both subnets", change: update(specPool("a11-tenant", "a11", false, "10.11.200.0/24")),
			want: []string{"2 subnets", "sub-1 (10.11.128.0/26, network net-1)", "sub-2 (10.11.129.64/26, network net-2)"}},
		{name: "shrink without subnets", change: update(specPool("a11-empty", "a11", false, "10.11.150.0/25")),
			want: []string{"drops 10.11.150.0/24", "remove the pool from the spec"}, not: []string{"subnets allocated"}},
		{name: "adopt is checked like an update", change: plan.Change{Action: plan.Adopt, Key: resource.Key{Kind: resource.KindSubnetPool, Name: "lab"},
			Desired: specPool("lab", "a11", false, "10.20.0.0/17"), Current: cur("lab")},
			want: []string{"drops 10.20.0.0/16"}},
		{name: "shared changed", change: update(specPool("a11-empty", "a11", true, "10.11.150.0/24")),
			want: []string{"cannot change shared", "false -> true", "remove the pool from the spec"}},
		// What the refusal of a shared change once advised: the same
		// prefixes under a new name, the old pool deleted in the same plan.
		{name: "shared changed by a new name over the same prefixes", change: create(specPool("a11-empty-shared", "a11", true, "10.11.150.0/24")),
			others: []plan.Change{del("a11-empty")}, want: []string{"overlaps 10.11.150.0/24", `"a11-empty"`}},
		{name: "shared changed and shrunk: both named", change: update(specPool("a11-tenant", "a11", true, "10.11.128.0/24")),
			want: []string{"cannot change shared", "drops 10.11.128.0/23"}},
		{name: "delete with subnets", change: del("a11-tenant"),
			want: []string{`"a11-tenant" still has 2 subnets`, "sub-1 (10.11.128.0/26, network net-1)", "sub-2"}},
		{name: "delete without subnets", change: del("a11-empty")},
		{name: "scope delete while the plan keeps its pools", change: scopeDelete, others: []plan.Change{del("a11-tenant")},
			want: []string{"address scope a11/v4 is used by subnet pools", `"a11-hand-in" (p-hand-in, made by hand)`,
				`"a11-empty" (p-empty, owned by static:deploy)`}, not: []string{`"a11-tenant"`}},
		{name: "scope delete with every pool in it deleted too", change: scopeDelete,
			others: []plan.Change{del("a11-tenant"), del("a11-hand-in"), del("a11-empty")}},
		{name: "scope delete while the plan moves its pools to other namespaces", change: scopeDelete,
			others: []plan.Change{del("a11-hand-in"), update(specPool("a11-tenant", "a12", false, "10.11.128.0/23")),
				update(specPool("a11-empty", "a12", false, "10.11.150.0/24"))}},
		{name: "scope delete while a pool moves out and another stays", change: scopeDelete,
			others: []plan.Change{del("a11-hand-in"), update(specPool("a11-tenant", "a12", false, "10.11.128.0/23")),
				update(specPool("a11-empty", "a11", false, "10.11.150.0/24"))},
			want: []string{`"a11-empty"`}, not: []string{`"a11-tenant"`}},
		{name: "scope update is not checked", change: plan.Change{Action: plan.Update, Key: scopeDelete.Key,
			Desired: stateScope("", "a11", specOwner), Current: st.objs[0]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &plan.Plan{Changes: append([]plan.Change{tt.change}, tt.others...)}
			err := st.Check(tt.change, p)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Check(%c %s) = %v, want it allowed", tt.change.Action, tt.change.Key, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Check(%c %s) = nil, want a refusal naming %q", tt.change.Action, tt.change.Key, tt.want)
			}
			for _, s := range tt.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("Check(%c %s) = %q, want it to name %q", tt.change.Action, tt.change.Key, err, s)
				}
			}
			for _, s := range tt.not {
				if strings.Contains(err.Error(), s) {
					t.Errorf("Check(%c %s) = %q, want it not to name %q", tt.change.Action, tt.change.Key, err, s)
				}
			}
		})
	}
}

// TestPoolStateAsStored: prefix lengths a pool leaves out are those
// Neutron fills in, so that a spec pool without them plans no update on
// every run; lengths given are kept, and the spec's object is not changed.
func TestPoolStateAsStored(t *testing.T) {
	tests := []struct {
		name          string
		pool          *resource.SubnetPool
		def, min, max int
	}{
		{"IPv4 none given", specPool("p", "a11", false, "10.0.0.0/16"), 8, 8, 32},
		{"IPv6 none given", specPool("p", "a11", false, "2001:db8::/48"), 64, 64, 128},
		{"IPv4 min given is the default", &resource.SubnetPool{Prefixes: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/16")}, MinPrefixLen: 24}, 24, 24, 32},
		{"IPv4 all given", &resource.SubnetPool{Prefixes: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/16")}, MinPrefixLen: 20, DefaultPrefixLen: 26, MaxPrefixLen: 28}, 26, 20, 28},
		{"IPv6 default given", &resource.SubnetPool{Prefixes: []netip.Prefix{netip.MustParsePrefix("2001:db8::/48")}, DefaultPrefixLen: 64}, 64, 64, 128},
		{"no prefixes: left alone", &resource.SubnetPool{}, 0, 0, 0},
	}
	st := testPoolState()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := *tt.pool
			got := st.AsStored(tt.pool).(*resource.SubnetPool)
			if got.DefaultPrefixLen != tt.def || got.MinPrefixLen != tt.min || got.MaxPrefixLen != tt.max {
				t.Errorf("AsStored lengths = default %d, min %d, max %d; want %d, %d, %d",
					got.DefaultPrefixLen, got.MinPrefixLen, got.MaxPrefixLen, tt.def, tt.min, tt.max)
			}
			if tt.pool.DefaultPrefixLen != before.DefaultPrefixLen || tt.pool.MinPrefixLen != before.MinPrefixLen || tt.pool.MaxPrefixLen != before.MaxPrefixLen {
				t.Errorf("AsStored changed the spec's pool to %+v", tt.pool)
			}
		})
	}
	if s := stateScope("", "a11", specOwner); st.AsStored(s) != resource.Object(s) {
		t.Errorf("AsStored of an address scope is not the scope itself")
	}
}
