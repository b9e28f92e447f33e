package netbox

import (
	"context"
	"testing"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// TestRoundTrip writes every kind, one object per mapping case, through
// Apply to a real NetBox, and reads each back equal; a plan against what
// was read has nothing to write.
func TestRoundTrip(t *testing.T) {
	rng := resource.VIDRanges{{Lo: 100, Hi: 199}, {Lo: 300, Hi: 310}}
	cases := []struct {
		name string
		objs []resource.Object
	}{
		{"vrf", []resource.Object{&resource.Namespace{M: meta(), Name: "rt-a", Description: "site a"}}},
		{"vlan group scoped to a site with vid ranges", []resource.Object{
			&resource.VLANGroup{M: meta(), Name: "rt-12-network", Location: "a11", Range: rng, Description: "leaf pair", Tags: []string{"blue"}}}},
		{"vlan group unscoped with the full range", []resource.Object{&resource.VLANGroup{M: meta(), Name: "RT Full"}}},
		{"vlans", []resource.Object{
			&resource.VLANGroup{M: meta(), Name: "rt-v"},
			&resource.VLAN{M: meta(), Group: "rt-v", VID: 100, Name: "net-100", Status: "Active", Role: "tenant-net", Tenant: "acme", Tags: []string{"red", "blue"}},
			&resource.VLAN{M: meta(), Group: "rt-v", VID: 4094, Name: "top", Status: "Reserved"}}},
		{"prefix in a vrf with scope, vlan, vni, role, tenant", []resource.Object{
			&resource.Namespace{M: meta(), Name: "rt-p"},
			&resource.VLANGroup{M: meta(), Name: "rt-p"},
			&resource.VLAN{M: meta(), Group: "rt-p", VID: 7, Name: "seven", Status: "Active"},
			&resource.Prefix{M: meta(), Namespace: "rt-p", Prefix: pfx("10.0.1.0/24"), Type: resource.PrefixNetwork, Status: "Deprecated",
				Locations: []string{"DC-A11"}, VLAN: "rt-p/7", VNI: 5001, Role: "tenant-net", Tenant: "acme", Description: "tenant net", Tags: []string{"blue"}}}},
		{"container prefix in the global table", []resource.Object{
			&resource.Prefix{M: meta(), Namespace: GlobalNamespace, Prefix: pfx("10.250.0.0/16"), Type: resource.PrefixContainer, Status: "Active"}}},
		{"pool prefix, ipv6", []resource.Object{
			&resource.Prefix{M: meta(), Namespace: GlobalNamespace, Prefix: pfx("2001:db8::/64"), Type: resource.PrefixPool, Status: "Reserved"}}},
		{"ip addresses", []resource.Object{
			&resource.Namespace{M: meta(), Name: "rt-ip"},
			&resource.IPAddress{M: meta(), Namespace: "rt-ip", Address: pfx("10.0.1.5/24"), Status: "Active", DNSName: "host.example.com", Tenant: "acme", Tags: []string{"blue"}},
			&resource.IPAddress{M: meta(), Namespace: GlobalNamespace, Address: pfx("10.0.1.5/16"), Status: "DHCP", Role: "Loopback", Description: "same host, global"},
			&resource.IPAddress{M: meta(), Namespace: GlobalNamespace, Address: pfx("2001:db8::5/64"), Status: "SLAAC"}}},
		{"asn of the configured rir", []resource.Object{&resource.ASN{M: meta(), ASN: 65000, Status: "Active", Tenant: "netops", Description: "spine"}}},
		{"asn of a large number", []resource.Object{&resource.ASN{M: meta(), ASN: 4200000000, Status: "Active"}}},
	}
	e := realEnv(t, nil, false)
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e.empty()
			if _, err := e.c.Bootstrap(ctx); err != nil {
				t.Fatal(err)
			}
			res, err := e.c.Apply(ctx, creates(tc.objs...))
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if res.Written != len(tc.objs) {
				t.Errorf("Apply wrote %d objects, want %d", res.Written, len(tc.objs))
			}
			current, err := e.c.List(ctx, scope.Static(owner))
			if err != nil {
				t.Fatal(err)
			}
			sameAs(t, tc.objs, current)
			if p := plan.Make(tc.objs, current, plan.DefaultPolicy(owner)); p.Writes() != 0 {
				t.Errorf("plan after the round trip has %d writes, want none: %+v", p.Writes(), p.Changes)
			}
		})
	}
}
