package nautobot

import (
	"context"
	"strconv"
	"testing"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// TestRealApplyRoundTrip writes every kind to real servers, reads it
// back with nothing to plan, then updates (a VLAN renamed, a prefix's
// locations changed, an IP address's mask), deletes, and reads back
// again with nothing to plan. The prefix location assignments are read
// by prefix id, and by network as on servers before 2.4.4 that cannot
// filter them by id.
func TestRealApplyRoundTrip(t *testing.T) {
	for _, byCIDR := range []bool{false, true} {
		t.Run("assignments by network "+strconv.FormatBool(byCIDR), func(t *testing.T) {
			servertest.EachReal(t, func(t *testing.T, srv *servertest.Server) {
				e := newRealEnv(t, srv, nil)
				ctx := context.Background()
				if byCIDR {
					if _, _, err := e.c.ServerVersion(ctx); err != nil {
						t.Fatal(err)
					}
					e.c.server.version = minServer
				}
				ns, g1, g2 := e.name("site"), e.name("net"), e.name("full")
				rng, _ := resource.ParseVIDRanges("100-199,300-310")
				asn, _ := strconv.ParseUint(e.uniq, 16, 32)
				desired := []resource.Object{
					&resource.Namespace{M: meta(), Name: ns, Description: "site A", Location: "a11"},
					&resource.VLANGroup{M: meta(), Name: g1, Location: "a11", Range: rng, Description: "leaf pair", Tags: []string{"blue"}},
					&resource.VLANGroup{M: meta(), Name: g2},
					&resource.VLAN{M: meta(), Group: g1, VID: 100, Name: "net-100", Status: "Active", Role: "tenant-net", Tenant: "acme", Tags: []string{"red", "blue"}},
					&resource.VLAN{M: meta(), Group: g2, VID: 4094, Name: "top", Status: "Reserved"},
					&resource.Prefix{M: meta(), Namespace: ns, Prefix: pfx("10.0.0.0/16"), Type: resource.PrefixContainer, Status: "Active"},
					&resource.Prefix{M: meta(), Namespace: ns, Prefix: pfx("10.0.1.0/24"), Type: resource.PrefixNetwork, Status: "Active",
						Locations: []string{"a11", "a12"}, VLAN: resource.VLANKey(g1, 100), VNI: 5001, Role: "tenant-net",
						Tenant: "acme", Description: "tenant net", Tags: []string{"blue"}},
					&resource.Prefix{M: meta(), Namespace: ns, Prefix: pfx("2001:db8::/64"), Type: resource.PrefixNetwork, Status: "Active", Locations: []string{"a11"}},
					&resource.IPAddress{M: meta(), Namespace: ns, Address: pfx("10.0.1.5/24"), Status: "Active", DNSName: "host.example.com", Tenant: "acme", Tags: []string{"blue"}},
					&resource.IPAddress{M: meta(), Namespace: ns, Address: pfx("10.0.2.1/16"), Status: "Reserved", Description: "in the container"},
					&resource.IPAddress{M: meta(), Namespace: ns, Address: pfx("2001:db8::5/64"), Status: "Active"},
					&resource.ASN{M: meta(), ASN: 4200000000 + uint32(asn%90000000), Status: "Active", Description: "site a"},
				}
				scope := scope.Scope{Owner: owner, Namespaces: []string{ns}, VLANGroups: []string{g1, g2}}
				if _, err := e.c.Apply(ctx, creates(desired...)); err != nil {
					t.Fatalf("Apply: %v", err)
				}
				current, err := e.c.List(ctx, scope)
				if err != nil {
					t.Fatal(err)
				}
				sameAs(t, desired, current)

				next := make([]resource.Object, 0, len(desired))
				for _, d := range desired {
					next = append(next, resource.Clone(d))
				}
				nb := byKey(next)
				vlan := nb[resource.Key{Kind: resource.KindVLAN, Name: resource.VLANKey(g1, 100)}].(*resource.VLAN)
				vlan.Name, vlan.Role, vlan.Tags = "renamed", "", []string{"red"}
				net := nb[resource.Key{Kind: resource.KindPrefix, Name: resource.PrefixKey(ns, pfx("10.0.1.0/24"))}].(*resource.Prefix)
				net.Locations, net.VNI, net.Status = []string{"a12"}, 0, "Deprecated"
				v6 := nb[resource.Key{Kind: resource.KindPrefix, Name: resource.PrefixKey(ns, pfx("2001:db8::/64"))}].(*resource.Prefix)
				v6.Locations = []string{"a11", "a12"}
				ip := nb[resource.Key{Kind: resource.KindIPAddress, Name: resource.IPKey(ns, pfx("10.0.1.5/24").Addr())}].(*resource.IPAddress)
				ip.Address, ip.DNSName = pfx("10.0.1.5/25"), ""
				group := nb[resource.Key{Kind: resource.KindVLANGroup, Name: g2}].(*resource.VLANGroup)
				group.Range, _ = resource.ParseVIDRanges("4000-4094")
				gone := resource.Key{Kind: resource.KindIPAddress, Name: resource.IPKey(ns, pfx("2001:db8::5/64").Addr())}
				next = slicesDelete(next, gone)

				p := plan.Make(next, current, plan.DefaultPolicy(owner))
				if p.Writes() != 6 {
					t.Fatalf("plan has %d writes, want 6: %+v", p.Writes(), p.Changes)
				}
				var changes []plan.Change
				for _, c := range p.Changes {
					if c.Action.Writes() {
						changes = append(changes, c)
					}
				}
				if _, err := e.c.Apply(ctx, changes); err != nil {
					t.Fatalf("Apply of updates: %v", err)
				}
				after, err := e.c.List(ctx, scope)
				if err != nil {
					t.Fatal(err)
				}
				sameAs(t, next, after)
				if p := plan.Make(next, after, plan.DefaultPolicy(owner)); p.Writes() != 0 {
					t.Errorf("plan after the updates has %d writes, want none: %+v", p.Writes(), p.Changes)
				}
			})
		})
	}
}
