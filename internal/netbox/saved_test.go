package netbox

import (
	"context"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// TestApplySavedRefusesChangedObject applies a saved plan one of whose
// objects was edited in NetBox after the plan: that object is refused
// (412) and keeps the edit, what refers to it is not written, and the
// rest of the plan is.
func TestApplySavedRefusesChangedObject(t *testing.T) {
	e := realEnv(t, nil, false)
	ctx := context.Background()
	objs := []resource.Object{
		&resource.VLANGroup{M: meta(), Name: "saved-net"},
		&resource.VLAN{M: meta(), Group: "saved-net", VID: 1, Name: "edited", Status: "Active"},
		&resource.VLAN{M: meta(), Group: "saved-net", VID: 2, Name: "kept", Status: "Active"},
		&resource.VLAN{M: meta(), Group: "saved-net", VID: 3, Name: "gone", Status: "Active"},
		&resource.Prefix{M: meta(), Namespace: GlobalNamespace, Prefix: pfx("10.3.0.0/24"), Type: resource.PrefixNetwork, Status: "Active"},
	}
	if _, err := e.c.Apply(ctx, creates(objs...)); err != nil {
		t.Fatal(err)
	}
	current, err := e.c.List(ctx, scope.Static(owner))
	if err != nil {
		t.Fatal(err)
	}
	cur := byKey(current)
	want := func(k resource.Key) resource.Object { return resource.Clone(cur[k]) }
	edited := want(objs[1].Key()).(*resource.VLAN)
	edited.Description = "from the plan"
	kept := want(objs[2].Key()).(*resource.VLAN)
	kept.Description = "from the plan"
	prefix := want(objs[4].Key()).(*resource.Prefix)
	prefix.VLAN = edited.Key().Name // refers to the VLAN that will be refused
	changes := []plan.Change{update(edited, cur[edited.Key()]), update(kept, cur[kept.Key()]),
		update(prefix, cur[prefix.Key()]), remove(cur[objs[3].Key()])}

	// Edited in NetBox after the plan was made.
	e.call("PATCH", "/api/ipam/vlans/"+cur[edited.Key()].Meta().ID+"/", map[string]any{"description": "by hand"}, nil)

	res, err := e.c.ApplySaved(ctx, changes)
	if err == nil {
		t.Fatal("ApplySaved succeeded, want the edited VLAN refused")
	}
	refused := map[resource.Key]string{}
	for _, x := range res.Errors {
		refused[x.Key] = x.Message
	}
	if msg := refused[edited.Key()]; !strings.Contains(msg, "changed in netbox since the plan") || !strings.Contains(msg, "re-plan") {
		t.Errorf("%s refused with %q, want a message saying it changed since the plan", edited.Key(), msg)
	}
	if msg := refused[prefix.Key()]; !strings.Contains(msg, edited.Key().String()) {
		t.Errorf("%s refused with %q, want it not written for the refused VLAN", prefix.Key(), msg)
	}
	if len(res.Errors) != 2 || res.Written != 2 {
		t.Errorf("ApplySaved wrote %d and refused %d (%v), want 2 and 2", res.Written, len(res.Errors), err)
	}
	after, err := e.c.List(ctx, scope.Static(owner))
	if err != nil {
		t.Fatal(err)
	}
	got := byKey(after)
	if v := got[edited.Key()].(*resource.VLAN); v.Description != "by hand" {
		t.Errorf("the edited VLAN's description is %q, want the edit kept", v.Description)
	}
	if v := got[kept.Key()].(*resource.VLAN); v.Description != "from the plan" {
		t.Errorf("the other VLAN's description is %q, want it written", v.Description)
	}
	if got[objs[3].Key()] != nil {
		t.Errorf("%s was not deleted", objs[3].Key())
	}
	if p := got[prefix.Key()].(*resource.Prefix); p.VLAN != "" {
		t.Errorf("the prefix got VLAN %q, want it not written", p.VLAN)
	}
}

// TestApplySavedSwap applies a saved plan in which two VLANs swap names:
// the interim name is written first, with If-Match, and each VLAN's own
// write then matches the version the interim write left.
func TestApplySavedSwap(t *testing.T) {
	e := realEnv(t, nil, false)
	ctx := context.Background()
	objs := []resource.Object{
		&resource.VLANGroup{M: meta(), Name: "swap-net"},
		&resource.VLAN{M: meta(), Group: "swap-net", VID: 1, Name: "left", Status: "Active"},
		&resource.VLAN{M: meta(), Group: "swap-net", VID: 2, Name: "right", Status: "Active"},
	}
	if _, err := e.c.Apply(ctx, creates(objs...)); err != nil {
		t.Fatal(err)
	}
	current, err := e.c.List(ctx, scope.Static(owner))
	if err != nil {
		t.Fatal(err)
	}
	next := []resource.Object{resource.Clone(objs[0]), resource.Clone(objs[1]), resource.Clone(objs[2])}
	next[1].(*resource.VLAN).Name, next[2].(*resource.VLAN).Name = "right", "left"
	p := plan.Make(next, current, plan.DefaultPolicy(owner))
	interim := 0
	for _, ch := range p.Changes {
		interim += len(ch.Interim)
	}
	if p.Writes() != 2 || interim == 0 {
		t.Fatalf("plan has %d writes and %d interim values, want 2 updates with one: %+v", p.Writes(), interim, p.Changes)
	}
	if _, err := e.c.ApplySaved(ctx, p.Changes); err != nil {
		t.Fatalf("ApplySaved: %v", err)
	}
	after, err := e.c.List(ctx, scope.Static(owner))
	if err != nil {
		t.Fatal(err)
	}
	sameAs(t, next, after)
}
