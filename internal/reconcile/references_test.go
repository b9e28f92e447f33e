package reconcile

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// TestReferencesResolve: a reference resolves to a desired object or to a
// current one the plan keeps, whoever owns it, and not to one the plan
// deletes.
func TestReferencesResolve(t *testing.T) {
	other := resource.Owner("static:other")
	group := func(o resource.Owner) *resource.VLANGroup {
		return &resource.VLANGroup{M: resource.Meta{Owner: o}, Name: "g", Range: resource.VIDRanges{{Lo: 1, Hi: 10}}}
	}
	vlan := &resource.VLAN{M: resource.Meta{Owner: owner}, Group: "g", VID: 100, Name: "v", Status: "Active"}
	ns := func(o resource.Owner) *resource.Namespace {
		return &resource.Namespace{M: resource.Meta{Owner: o}, Name: "ns"}
	}
	ip := &resource.IPAddress{M: resource.Meta{Owner: owner}, Namespace: "ns", Address: netip.MustParsePrefix("10.0.0.1/24"), Status: "Active"}
	for _, tc := range []struct {
		name             string
		desired, current []resource.Object
		want             []string // field of each problem
	}{
		{"desired group", []resource.Object{group(owner), vlan}, nil, []string{"vid"}},
		{"group of another owner, kept", []resource.Object{vlan}, []resource.Object{group(other)}, []string{"vid"}},
		{"own group the plan deletes", []resource.Object{vlan}, []resource.Object{group(owner)}, []string{"vlan_group"}},
		{"no group", []resource.Object{vlan}, nil, []string{"vlan_group"}},
		{"namespace of another owner, kept", []resource.Object{ip}, []resource.Object{ns(other)}, nil},
		{"own namespace the plan deletes", []resource.Object{ip}, []resource.Object{ns(owner)}, []string{"namespace"}},
		{"status unknown", []resource.Object{ns(owner), &resource.IPAddress{M: resource.Meta{Owner: owner}, Namespace: "ns",
			Address: netip.MustParsePrefix("10.0.0.1/24"), Status: "Retired"}}, nil, []string{"status"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := plan.Make(tc.desired, tc.current, plan.DefaultPolicy(owner))
			var got []string
			for _, pr := range References(p, tc.desired, tc.current, map[resource.Kind]map[string]bool{resource.RefStatus: {"Active": true}}, "Nautobot") {
				got = append(got, pr.Field)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("problems in fields %q, want %q", got, tc.want)
			}
		})
	}
}

// TestReferencesKeepOrder: the problems of a large plan, checked in
// parallel, come in the order of the desired objects.
func TestReferencesKeepOrder(t *testing.T) {
	desired := []resource.Object{&resource.Namespace{M: resource.Meta{Owner: owner}, Name: "ns"}}
	var want []resource.Key
	for i := range 2*chunkSize + chunkSize/2 {
		o := &resource.IPAddress{M: resource.Meta{Owner: owner}, Namespace: "ns",
			Address: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 8)}
		if i%1000 == 999 {
			o.Namespace = fmt.Sprintf("missing-%d", i)
			want = append(want, o.Key())
		}
		desired = append(desired, o)
	}
	p := plan.Make(desired, nil, plan.DefaultPolicy(owner))
	var got []resource.Key
	for _, pr := range References(p, desired, nil, nil, "Nautobot") {
		got = append(got, pr.Key)
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %d problems, want %d in desired order (first got %v, want %v)", len(got), len(want), got[:min(1, len(got))], want[:1])
	}
}
