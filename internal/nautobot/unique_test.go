package nautobot

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// renumberState is a group with three VLANs, and a prefix using the
// first; next renumbers that one under its name, swaps the names of the
// other two, and passes the name of a VLAN it deletes on to a new one.
func renumberState(next bool) []resource.Object {
	v := func(vid uint16, name string) *resource.VLAN {
		return &resource.VLAN{M: meta(), Group: "g", VID: vid, Name: name, Status: "Active"}
	}
	objs := []resource.Object{
		&resource.Namespace{M: meta(), Name: "n"},
		&resource.VLANGroup{M: meta(), Name: "g", Range: resource.VIDRanges{{Lo: 100, Hi: 299}}},
	}
	if !next {
		return append(objs, v(100, "x"), v(101, "a"), v(102, "b"), v(103, "gone"), v(104, "c"),
			&resource.Prefix{M: meta(), Namespace: "n", Prefix: pfx("10.0.0.0/24"), Type: resource.PrefixNetwork, Status: "Active", VLAN: "g/100"})
	}
	return append(objs, v(200, "x"), v(101, "b"), v(102, "a"), v(104, "gone"),
		&resource.Prefix{M: meta(), Namespace: "n", Prefix: pfx("10.0.0.0/24"), Type: resource.PrefixNetwork, Status: "Active", VLAN: "g/200"})
}

// TestRenumberAndSwapNames applies a plan that renumbers a VLAN a prefix
// uses, swaps two VLANs' names and gives a deleted VLAN's name to
// another: every write goes through, the renumbered VLAN keeps its id
// and the prefix keeps it, and the next plan is empty.
func TestRenumberAndSwapNames(t *testing.T) { servertest.Each(t, renumberAndSwapNames) }

func renumberAndSwapNames(t *testing.T, srv *servertest.Server) {
	e := newEnvOn(t, srv, nil, false)
	ctx := context.Background()
	pol := plan.DefaultPolicy(owner)
	pol.AllowMassDelete = true
	if _, err := e.c.Apply(ctx, plan.Make(renumberState(false), nil, pol).Changes); err != nil {
		t.Fatalf("first Apply: %v", err)
	}
	before, err := e.c.List(ctx, scope.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	oldID := byKey(before)[resource.Key{Kind: resource.KindVLAN, Name: "g/100"}].Meta().ID

	p := plan.Make(renumberState(true), before, pol)
	if len(p.Refusals) > 0 {
		t.Fatalf("plan refused: %q", p.Refusals)
	}
	res, err := e.c.Apply(ctx, p.Changes)
	if err != nil {
		t.Fatalf("Apply of the renumber and swap: %v (errors %v)", err, res.Errors)
	}
	after, err := e.c.List(ctx, scope.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	sameAs(t, renumberState(true), after)
	if p := plan.Make(renumberState(true), after, pol); len(p.Changes) != 0 {
		t.Errorf("plan after apply has changes %v, want none", p.Changes)
	}
	got := byKey(after)
	if v := got[resource.Key{Kind: resource.KindVLAN, Name: "g/200"}]; v == nil || v.Meta().ID != oldID {
		t.Errorf("VLAN g/200 is %v, want the VLAN g/100 was (id %s)", v, oldID)
	}
	if _, ok := got[resource.Key{Kind: resource.KindVLAN, Name: "g/103"}]; ok {
		t.Errorf("VLAN g/103 is still there")
	}
}

// TestIPSkippedWithItsParent: an IP address whose parent prefix's create
// failed in the same apply is not sent (Nautobot would refuse it for
// want of a parent), and says why; the others are written.
func TestIPSkippedWithItsParent(t *testing.T) {
	e := newEnv(t, nil, false)
	var mu sync.Mutex
	var sent []string // bodies of IP address creates
	intercept(e, func(r *http.Request, body []byte) (int, string, bool) {
		if r.Method == http.MethodPost && r.URL.Path == "/api/ipam/ip-addresses/" {
			mu.Lock()
			sent = append(sent, string(body))
			mu.Unlock()
		}
		return badPrefix(r, body)
	})
	objs := []resource.Object{
		&resource.Namespace{M: meta(), Name: "n"},
		&resource.Prefix{M: meta(), Namespace: "n", Prefix: pfx("10.0.1.0/24"), Status: "Active"},
		&resource.Prefix{M: meta(), Namespace: "n", Prefix: pfx("10.0.6.0/24"), Status: "Active"},
		&resource.IPAddress{M: meta(), Namespace: "n", Address: pfx("10.0.1.5/24"), Status: "Active"},
		&resource.IPAddress{M: meta(), Namespace: "n", Address: pfx("10.0.6.5/24"), Status: "Active"},
		&resource.IPAddress{M: meta(), Namespace: "n", Address: pfx("10.0.6.6/24"), Status: "Active"},
	}
	res, err := e.c.Apply(context.Background(), creates(objs...))
	if err == nil {
		t.Fatal("Apply = nil error, want the prefix and its addresses refused")
	}
	want := map[string]string{
		"prefix n/10.0.6.0/24":  "ValidationError",
		"ip_address n/10.0.6.5": "not written: its parent prefix n/10.0.6.0/24 was not written",
		"ip_address n/10.0.6.6": "not written: its parent prefix n/10.0.6.0/24 was not written",
	}
	if len(res.Errors) != len(want) {
		t.Errorf("errors %v, want %d", res.Errors, len(want))
	}
	for _, oe := range res.Errors {
		if m, ok := want[oe.Key.String()]; !ok || !strings.Contains(oe.Message, m) {
			t.Errorf("error %s: %q, want one containing %q", oe.Key, oe.Message, m)
		}
	}
	for _, b := range sent {
		if strings.Contains(b, "10.0.6.") {
			t.Errorf("an address of the failed prefix was sent: %s", b)
		}
	}
	if got := e.srv.Count(t, "ipam.ipaddress"); got != 1 {
		t.Errorf("%d IP addresses stored, want 1", got)
	}
}

// TestInterimRefused: a change whose interim value Nautobot refuses is
// not written, and says why; the write that wanted its name fails on its
// own, and the rest of the plan is written.
func TestInterimRefused(t *testing.T) {
	e := newEnv(t, nil, false)
	ctx := context.Background()
	pol := plan.DefaultPolicy(owner)
	if _, err := e.c.Apply(ctx, plan.Make(renumberState(false), nil, pol).Changes); err != nil {
		t.Fatalf("first Apply: %v", err)
	}
	current, err := e.c.List(ctx, scope.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var patches []string
	intercept(e, func(r *http.Request, body []byte) (int, string, bool) {
		if r.Method != http.MethodPatch || r.URL.Path != "/api/ipam/vlans/" {
			return 0, "", false
		}
		mu.Lock()
		patches = append(patches, string(body))
		mu.Unlock()
		if strings.Contains(string(body), "ipsync-renaming-101") {
			return http.StatusBadRequest, `[{"name": ["Refused for the test."]}]`, true
		}
		return 0, "", false
	})
	next := renumberState(false)
	next[3].(*resource.VLAN).Name, next[4].(*resource.VLAN).Name = "b", "a" // swap 101 and 102
	p := plan.Make(next, current, pol)
	res, err := e.c.Apply(ctx, p.Changes)
	if err == nil {
		t.Fatal("Apply = nil error, want the swap refused")
	}
	want := map[string]string{"vlan g/101": "Refused for the test.", "vlan g/102": "already exists"}
	if len(res.Errors) != len(want) {
		t.Errorf("errors %v, want %d", res.Errors, len(want))
	}
	for _, oe := range res.Errors {
		if m, ok := want[oe.Key.String()]; !ok || !strings.Contains(oe.Message, m) {
			t.Errorf("error %s: %q, want one containing %q", oe.Key, oe.Message, m)
		}
	}
	for _, b := range patches {
		if strings.Contains(b, `"name":"b"`) {
			t.Errorf("VLAN 101's own update was sent after its interim write failed: %s", b)
		}
	}
}
