package nautobot

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// TestBadObjectIsIsolated sends 250 objects of which one is refused: the
// 249 others are written, and the error names the bad one and
// Nautobot's message.
func TestBadObjectIsIsolated(t *testing.T) { servertest.Each(t, badObjectIsIsolated) }

func badObjectIsIsolated(t *testing.T, srv *servertest.Server) {
	e := newEnvOn(t, srv, nil, false)
	ctx := context.Background()
	rng, _ := resource.ParseVIDRanges("1-300")
	if _, err := e.c.Apply(ctx, creates(&resource.VLANGroup{M: meta(), Name: "g", Range: rng})); err != nil {
		t.Fatal(err)
	}
	var objs []resource.Object
	for i := range 250 {
		vid := uint16(i + 1)
		if i == 137 {
			vid = 3000 // outside the group's range
		}
		objs = append(objs, &resource.VLAN{M: meta(), Group: "g", VID: vid, Name: fmt.Sprintf("v%d", i), Status: "Active"})
	}
	// A prefix on the bad VLAN is not attempted.
	dependent := &resource.Prefix{M: meta(), Namespace: "Global", Prefix: pfx("10.9.0.0/24"), Status: "Active", VLAN: resource.VLANKey("g", 3000)}
	e.srv.ResetCounts()
	res, err := e.c.Apply(ctx, creates(append(objs, dependent)...))
	if err == nil {
		t.Fatal("Apply with a bad VLAN succeeded")
	}
	if n := e.srv.Count(t, "ipam.vlan"); n != 249 {
		t.Errorf("%d VLANs stored, want 249", n)
	}
	if len(res.Errors) != 2 {
		t.Fatalf("errors = %v, want the bad VLAN and its prefix", res.Errors)
	}
	bad := res.Errors[0]
	if bad.Key != (resource.Key{Kind: resource.KindVLAN, Name: "g/3000"}) || bad.Action != plan.Create ||
		bad.Message != "vid: VLAN ID is not contained in VLAN Group range (1-300)" {
		t.Errorf("error = %+v, want the key g/3000 and Nautobot's vid message", bad)
	}
	if !strings.Contains(res.Errors[1].Message, "vlan g/3000") || res.Errors[1].Key != dependent.Key() {
		t.Errorf("dependent error = %+v", res.Errors[1])
	}
	if n := e.srv.Requests("POST", "/api/ipam/vlans/"); n != 2 {
		t.Errorf("%d create requests, want 2: the per-object error list isolates the bad one at once", n)
	}
	if n := e.srv.Requests("POST", "/api/ipam/prefixes/"); n != 0 {
		t.Errorf("%d prefix creates, want none", n)
	}
}

// TestBadUpdateIsolatedByBisection: a bulk update's 400 names no object,
// so the batch is halved until the bad one stands alone.
func TestBadUpdateIsolatedByBisection(t *testing.T) { servertest.Each(t, badUpdateIsolatedByBisection) }

func badUpdateIsolatedByBisection(t *testing.T, srv *servertest.Server) {
	e := newEnvOn(t, srv, nil, false)
	ctx := context.Background()
	seedVLANs(t, e, "g", 250)
	current, err := e.c.List(ctx, scope.Scope{Kinds: []resource.Kind{resource.KindVLAN}})
	if err != nil {
		t.Fatal(err)
	}
	var changes []plan.Change
	for _, c := range current {
		d := resource.Clone(c).(*resource.VLAN)
		d.Description = "updated"
		if d.VID == 42 {
			d.Name = "v43" // clashes with another VLAN's name
		}
		changes = append(changes, update(d, c, plan.Update))
	}
	e.srv.ResetCounts()
	res, err := e.c.Apply(ctx, changes)
	if err == nil || len(res.Errors) != 1 {
		t.Fatalf("Apply: %v, errors %v; want one refused update", err, res.Errors)
	}
	if got := res.Errors[0]; got.Key.Name != "g/42" || got.Message != "__all__: VLAN with this Vlan group and Name already exists." {
		t.Errorf("error = %+v", got)
	}
	if got := res.Counts[resource.KindVLAN][plan.Update]; got != 249 {
		t.Errorf("%d updates written, want 249", got)
	}
	if n := e.srv.Requests("PATCH", "/api/ipam/vlans/"); n > 2*8+1 {
		t.Errorf("%d PATCH requests, want at most %d for a bisection of 250", n, 2*8+1)
	}
}

func TestUpdateOfDeletedObject(t *testing.T) { servertest.Each(t, updateOfDeletedObject) }

func updateOfDeletedObject(t *testing.T, srv *servertest.Server) {
	e := newEnvOn(t, srv, nil, false)
	ctx := context.Background()
	seedVLANs(t, e, "g", 2)
	current, _ := e.c.List(ctx, scope.Scope{Kinds: []resource.Kind{resource.KindVLAN}})
	var changes []plan.Change
	for _, c := range current {
		d := resource.Clone(c).(*resource.VLAN)
		d.Description = "x"
		changes = append(changes, update(d, c, plan.Update))
	}
	// Someone deletes one meanwhile.
	if _, err := e.c.Apply(ctx, []plan.Change{remove(current[0])}); err != nil {
		t.Fatal(err)
	}
	res, err := e.c.Apply(ctx, changes)
	if err == nil || len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, "deleted since the plan") {
		t.Errorf("update of a deleted VLAN: %v %v", err, res.Errors)
	}
}

func TestDeleteInUseIsRefused(t *testing.T) { servertest.Each(t, deleteInUseIsRefused) }

func deleteInUseIsRefused(t *testing.T, srv *servertest.Server) {
	e := newEnvOn(t, srv, nil, false)
	ctx := context.Background()
	seedVLANs(t, e, "g", 1)
	current, _ := e.c.List(ctx, scope.Scope{Kinds: []resource.Kind{resource.KindVLANGroup}})
	res, err := e.c.Apply(ctx, []plan.Change{remove(byKey(current)[resource.Key{Kind: resource.KindVLANGroup, Name: "g"}])})
	if err == nil || len(res.Errors) != 1 || !strings.HasPrefix(res.Errors[0].Message, "Unable to delete object. 1 dependent objects were found") {
		t.Errorf("delete of a group in use: %v %v", err, res.Errors)
	}
}

func TestReferenceToUnknownStatus(t *testing.T) { servertest.Each(t, referenceToUnknownStatus) }

func referenceToUnknownStatus(t *testing.T, srv *servertest.Server) {
	e := newEnvOn(t, srv, nil, false)
	res, err := e.c.Apply(context.Background(), creates(&resource.Namespace{M: meta(), Name: "n"},
		&resource.Prefix{M: meta(), Namespace: "n", Prefix: pfx("10.0.0.0/24"), Status: "Bogus"}))
	if err == nil || len(res.Errors) != 1 {
		t.Fatalf("Apply: %v %v", err, res.Errors)
	}
	if want := "status: Related object not found using the provided attributes: {'name': 'Bogus'}"; res.Errors[0].Message != want {
		t.Errorf("message = %q, want %q", res.Errors[0].Message, want)
	}
}
