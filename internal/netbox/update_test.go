package netbox

import (
	"context"
	"testing"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// TestUpdateRoundTrip changes a field of every kind through a plan, on a
// real NetBox, and reads each back equal, with nothing left to plan; a
// second List reads the same objects at the same versions.
func TestUpdateRoundTrip(t *testing.T) {
	e := realEnv(t, nil, false)
	ctx := context.Background()
	rng := resource.VIDRanges{{Lo: 100, Hi: 199}}
	before := []resource.Object{
		&resource.Namespace{M: meta(), Name: "up", Description: "old"},
		&resource.VLANGroup{M: meta(), Name: "up-net", Location: "a11", Range: rng},
		&resource.VLAN{M: meta(), Group: "up-net", VID: 100, Name: "net-100", Status: "Active", Role: "storage", Tags: []string{"red"}},
		&resource.Prefix{M: meta(), Namespace: "up", Prefix: pfx("10.0.0.0/16"), Type: resource.PrefixContainer, Status: "Active", Locations: []string{"a11"}},
		&resource.Prefix{M: meta(), Namespace: "up", Prefix: pfx("10.0.1.0/24"), Type: resource.PrefixNetwork, Status: "Active",
			VLAN: "up-net/100", VNI: 5001, Tenant: "acme"},
		&resource.IPAddress{M: meta(), Namespace: "up", Address: pfx("10.0.1.5/24"), Status: "Active", DNSName: "a.example.com"},
		&resource.ASN{M: meta(), ASN: 65001, Status: "Active"},
	}
	if _, err := e.c.Apply(ctx, creates(before...)); err != nil {
		t.Fatal(err)
	}
	current, err := e.c.List(ctx, scope.Static(owner))
	if err != nil {
		t.Fatal(err)
	}
	after := make([]resource.Object, len(before))
	for i, o := range before {
		after[i] = resource.Clone(o)
	}
	after[0].(*resource.Namespace).Description = "new"
	g := after[1].(*resource.VLANGroup)
	g.Location, g.Range = "a12", resource.VIDRanges{{Lo: 100, Hi: 150}, {Lo: 300, Hi: 310}}
	v := after[2].(*resource.VLAN)
	v.Name, v.Status, v.Role, v.Tags = "renamed", "Deprecated", "", []string{"blue", "red"}
	c := after[3].(*resource.Prefix)
	c.Type, c.Status, c.Locations = resource.PrefixPool, "Reserved", nil
	p := after[4].(*resource.Prefix)
	p.Type, p.VLAN, p.VNI, p.Tenant, p.Locations = resource.PrefixContainer, "", 0, "", []string{"DC-A11"}
	ip := after[5].(*resource.IPAddress)
	ip.Address, ip.DNSName, ip.Status, ip.Role = pfx("10.0.1.5/25"), "", "Reserved", "VIP"
	after[6].(*resource.ASN).Tenant = "netops"

	pl := plan.Make(after, current, plan.DefaultPolicy(owner))
	if pl.Writes() != len(after) {
		t.Fatalf("plan has %d writes, want %d: %+v", pl.Writes(), len(after), pl.Changes)
	}
	if _, err := e.c.Apply(ctx, pl.Changes); err != nil {
		t.Fatalf("Apply of the updates: %v", err)
	}
	got, err := e.c.List(ctx, scope.Static(owner))
	if err != nil {
		t.Fatal(err)
	}
	sameAs(t, after, got)
	if pl := plan.Make(after, got, plan.DefaultPolicy(owner)); pl.Writes() != 0 {
		t.Errorf("plan after the updates has %d writes, want none: %+v", pl.Writes(), pl.Changes)
	}
	again, err := e.c.List(ctx, scope.Static(owner))
	if err != nil {
		t.Fatal(err)
	}
	prev := byKey(got)
	for _, o := range again {
		if p := prev[o.Key()]; p == nil || *p.Meta() != *o.Meta() || o.Diff(p) != nil {
			t.Errorf("%s read again as %+v, was %+v", o.Key(), o, p)
		}
	}
	if len(again) != len(got) {
		t.Errorf("List read %d objects, then %d", len(got), len(again))
	}
}

// TestLocationScope writes VLAN groups and prefixes scoped to NetBox
// locations (LocationScope "location") and reads them back so.
func TestLocationScope(t *testing.T) {
	e := realEnv(t, func(c *Config) { c.LocationScope = ScopeLocation }, false)
	ctx := context.Background()
	e.call("POST", "/api/dcim/locations/", map[string]any{"name": "row-1", "slug": "row-1", "site": e.s.ID(t, "dcim.site", "a11")}, nil)
	objs := []resource.Object{
		&resource.VLANGroup{M: meta(), Name: "row-net", Location: "row-1"},
		&resource.Prefix{M: meta(), Namespace: GlobalNamespace, Prefix: pfx("10.6.0.0/24"), Type: resource.PrefixNetwork, Status: "Active", Locations: []string{"row-1"}},
	}
	if _, err := e.c.Apply(ctx, creates(objs...)); err != nil {
		t.Fatal(err)
	}
	got, err := e.c.List(ctx, scope.Scope{Owner: owner, Kinds: []resource.Kind{resource.KindVLANGroup, resource.KindPrefix}, Locations: []string{"row-1"}})
	if err != nil {
		t.Fatal(err)
	}
	sameAs(t, objs, got)
	if len(got) != len(objs) {
		t.Errorf("List read %d objects, want %d", len(got), len(objs))
	}
	if scoped := e.s.Objects(t, "ipam.vlangroup", "name=row-net"); len(scoped) != 1 || scoped[0]["scope_type"] != "dcim.location" {
		t.Errorf("the VLAN group is held as %v, want scoped to a dcim.location", scoped)
	}
}
