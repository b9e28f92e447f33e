package nautobot

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/nautobot/emulator"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

func desiredSet(t *testing.T) []resource.Object {
	t.Helper()
	rng, err := resource.ParseVIDRanges("100-199,300-310")
	if err != nil {
		t.Fatal(err)
	}
	return []resource.Object{
		&resource.Namespace{M: meta(), Name: "site-a", Description: "site A", Location: "a11"},
		&resource.VLANGroup{M: meta(), Name: "a11-12-network", Location: "a11", Range: rng, Description: "leaf pair", Tags: []string{"blue"}},
		&resource.VLANGroup{M: meta(), Name: "full-range"},
		&resource.VLAN{M: meta(), Group: "a11-12-network", VID: 100, Name: "net-100", Status: "Active", Role: "tenant-net", Tenant: "acme", Tags: []string{"red", "blue"}},
		&resource.VLAN{M: meta(), Group: "full-range", VID: 4094, Name: "top", Status: "Reserved"},
		&resource.Prefix{M: meta(), Namespace: "site-a", Prefix: pfx("10.0.0.0/16"), Type: resource.PrefixContainer, Status: "Active"},
		&resource.Prefix{M: meta(), Namespace: "site-a", Prefix: pfx("10.0.1.0/24"), Type: resource.PrefixNetwork, Status: "Active",
			Locations: []string{"a12", "a11"}, VLAN: resource.VLANKey("a11-12-network", 100), VNI: 5001, Role: "tenant-net",
			Tenant: "acme", Description: "tenant net", Tags: []string{"blue"}},
		&resource.Prefix{M: meta(), Namespace: "site-a", Prefix: pfx("2001:db8::/64"), Type: resource.PrefixNetwork, Status: "Active", Locations: []string{"a11"}},
		&resource.IPAddress{M: meta(), Namespace: "site-a", Address: pfx("10.0.1.5/24"), Status: "Active", DNSName: "host.example.com", Tenant: "acme", Tags: []string{"blue"}},
		&resource.IPAddress{M: meta(), Namespace: "site-a", Address: pfx("10.0.2.1/16"), Status: "Reserved", Description: "in the container"},
		&resource.IPAddress{M: meta(), Namespace: "site-a", Address: pfx("2001:db8::5/64"), Status: "Active"},
		&resource.ASN{M: meta(), ASN: 65001, Status: "Active", Description: "site a", Tags: []string{"blue"}},
	}
}

// TestApplyThenListRoundTrips writes every kind through Apply and reads
// it back: the planner must then find nothing to do.
func TestApplyThenListRoundTrips(t *testing.T) { servertest.Each(t, applyThenListRoundTrips) }

func applyThenListRoundTrips(t *testing.T, srv *servertest.Server) {
	e := newEnvOn(t, srv, nil, false)
	ctx := context.Background()
	desired := desiredSet(t)
	res, err := e.c.Apply(ctx, creates(desired...))
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if got, want := res.Written, len(desired); got != want {
		t.Errorf("Apply wrote %d objects, want %d (%v)", got, want, res.Counts)
	}
	current, err := e.c.List(ctx, scope.Scope{})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	sameAs(t, desired, current)
	if p := plan.Make(desired, current, plan.DefaultPolicy(owner)); len(p.Changes) != 0 {
		t.Errorf("plan after apply has %d changes, want none: %+v", len(p.Changes), p.Changes)
	}
	// The second location went in through an assignment.
	if n := e.srv.Count(t, "ipam.prefixlocationassignment"); n != 3 {
		t.Errorf("%d prefix location assignments, want 3", n)
	}
}

func TestUpdateAdoptDelete(t *testing.T) { servertest.Each(t, updateAdoptDelete) }

func updateAdoptDelete(t *testing.T, srv *servertest.Server) {
	e := newEnvOn(t, srv, nil, false)
	ctx := context.Background()
	desired := desiredSet(t)
	if _, err := e.c.Apply(ctx, creates(desired...)); err != nil {
		t.Fatal(err)
	}
	// Someone else's namespace, unmarked, that the owner adopts.
	e.srv.Seed(t, emulator.SeedData{Namespaces: []string{"handmade"}})
	current, err := e.c.List(ctx, scope.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	cur := byKey(current)

	next := make([]resource.Object, 0, len(desired))
	for _, d := range desired {
		next = append(next, resource.Clone(d))
	}
	nb := byKey(next)
	vlan := nb[resource.Key{Kind: resource.KindVLAN, Name: "a11-12-network/100"}].(*resource.VLAN)
	vlan.Name, vlan.Role, vlan.Tags = "renamed", "", []string{"red"}
	net := nb[resource.Key{Kind: resource.KindPrefix, Name: "site-a/10.0.1.0/24"}].(*resource.Prefix)
	net.Locations, net.VNI, net.Status = []string{"a12"}, 0, "Deprecated"
	ip := nb[resource.Key{Kind: resource.KindIPAddress, Name: "site-a/10.0.1.5"}].(*resource.IPAddress)
	ip.Address, ip.DNSName = pfx("10.0.1.5/25"), ""
	group := nb[resource.Key{Kind: resource.KindVLANGroup, Name: "full-range"}].(*resource.VLANGroup)
	group.Range, _ = resource.ParseVIDRanges("4000-4094")
	adopt := &resource.Namespace{M: meta(), Name: "handmade", Description: "now ours"}
	next = append(next, adopt)

	gone := nb[resource.Key{Kind: resource.KindIPAddress, Name: "site-a/2001:db8::5"}]
	var changes []plan.Change
	for _, o := range []resource.Object{group, vlan, net, ip} {
		changes = append(changes, update(o, cur[o.Key()], plan.Update))
	}
	changes = append(changes, update(adopt, cur[adopt.Key()], plan.Adopt), remove(cur[gone.Key()]))
	next = slicesDelete(next, gone.Key())

	res, err := e.c.Apply(ctx, changes)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	want := map[plan.Action]int{plan.Update: 4, plan.Adopt: 1, plan.Delete: 1}
	for a, n := range want {
		got := 0
		for _, m := range res.Counts {
			got += m[a]
		}
		if got != n {
			t.Errorf("%s: wrote %d, want %d", a, got, n)
		}
	}
	after, err := e.c.List(ctx, scope.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	sameAs(t, next, after)
	if _, ok := byKey(after)[gone.Key()]; ok {
		t.Errorf("%s still listed after its delete", gone.Key())
	}
	if p := plan.Make(next, after, plan.DefaultPolicy(owner)); len(p.Changes) != 0 {
		t.Errorf("plan after apply has %d changes, want none: %+v", len(p.Changes), p.Changes)
	}
}

func slicesDelete(objs []resource.Object, k resource.Key) []resource.Object {
	out := objs[:0]
	for _, o := range objs {
		if o.Key() != k {
			out = append(out, o)
		}
	}
	return out
}

func TestWritesPerKindAreBatched(t *testing.T) { servertest.Each(t, writesPerKindAreBatched) }

func writesPerKindAreBatched(t *testing.T, srv *servertest.Server) {
	// Batches of 25, which real servers take as they take larger ones: the
	// counts are the point, and every object costs a busy CI server some
	// 0.1-0.4 s. A loaded machine can take more than the default minute
	// for a batch of addresses; a retry after the timeout would be one
	// more request than the batching this test counts.
	e := newEnvOn(t, srv, func(c *Config) { c.BatchSize, c.Timeout = 25, 10*time.Minute }, false)
	// Groups and their VLANs interleaved, as a caller might list them:
	// still one request for the groups.
	var objs []resource.Object
	for i := range 60 {
		g := fmt.Sprintf("g%d", i/30)
		if i%30 == 0 {
			objs = append(objs, &resource.VLANGroup{M: meta(), Name: g})
		}
		objs = append(objs, &resource.VLAN{M: meta(), Group: g, VID: uint16(i + 1), Name: fmt.Sprintf("v%d", i), Status: "Active"})
	}
	objs = append(objs, &resource.Prefix{M: meta(), Namespace: "Global", Prefix: pfx("10.0.0.0/8"), Status: "Active"})
	for i := range 76 {
		objs = append(objs, &resource.IPAddress{M: meta(), Namespace: "Global", Address: pfx(fmt.Sprintf("10.0.%d.%d/8", i/250, i%250+1)), Status: "Active"})
	}
	res, err := e.c.Apply(context.Background(), creates(objs...))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path string
		want int
	}{{"/api/ipam/vlan-groups/", 1}, {"/api/ipam/vlans/", 3}, {"/api/ipam/prefixes/", 1}, {"/api/ipam/ip-addresses/", 4}} {
		if got := e.srv.Requests("POST", tt.path); got != tt.want {
			t.Errorf("POST %s: %d requests, want %d", tt.path, got, tt.want)
		}
	}
	if res.Writes != 9 {
		t.Errorf("ApplyResult.Writes = %d, want 9", res.Writes)
	}
}
