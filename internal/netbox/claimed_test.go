package netbox

import (
	"context"
	"log/slog"
	"testing"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sot"
)

// TestRerunFindsItsEarlierRunsWrites: a run killed mid-apply (or whose
// answers were lost) has its creates committed after the rerun read
// NetBox, so the rerun's creates of the same VLANs, prefixes and
// addresses clash (a VLAN's group and VID, a prefix or address in a VRF
// that enforces uniqueness). Those an object of the same owner holds are
// that run's writes: the rerun updates them to its plan and reports them
// written. A key another owner holds stays refused.
func TestRerunFindsItsEarlierRunsWrites(t *testing.T) {
	e := realEnv(t, nil, false)
	ctx := context.Background()
	const other = resource.Owner("static:other")
	seed := []resource.Object{&resource.Namespace{M: meta(), Name: "site"}, &resource.VLANGroup{M: meta(), Name: "leafs", Location: "a11"}}
	if _, err := e.c.Apply(ctx, creates(seed...)); err != nil {
		t.Fatal(err)
	}
	rerun, err := New(Config{Settings: sot.Settings{URL: e.s.URL(), Token: e.s.Token()}}, slog.New(slog.DiscardHandler), sot.WithHTTPClient(e.s.Client()))
	if err != nil {
		t.Fatal(err)
	}
	sc := scope.Scope{Owner: owner, Namespaces: []string{"site", "site2"}, VLANGroups: []string{"leafs", "floating"}}
	objects := func(description string) []resource.Object {
		return []resource.Object{
			// NetBox keeps VRF names and the names of VLAN groups
			// without a scope not unique: looked up before the create.
			&resource.Namespace{M: meta(), Name: "site2", Description: description},
			&resource.VLANGroup{M: meta(), Name: "floating", Description: description},
			&resource.VLAN{M: meta(), Group: "leafs", VID: 100, Name: "net-100", Status: "Active", Description: description},
			&resource.Prefix{M: meta(), Namespace: "site", Prefix: pfx("10.0.1.0/24"), Type: resource.PrefixNetwork, Status: "Active",
				VLAN: resource.VLANKey("leafs", 100), Description: description},
			&resource.IPAddress{M: meta(), Namespace: "site", Address: pfx("10.0.1.5/24"), Status: "Active", Description: description},
			&resource.IPAddress{M: meta(), Namespace: "site", Address: pfx("10.0.1.6/24"), Status: "Active", Description: description},
		}
	}
	current, err := rerun.List(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	desired := append(append(seed, objects("rerun")...), &resource.VLAN{M: meta(), Group: "leafs", VID: 200, Name: "theirs", Status: "Active"})
	p := plan.Make(desired, current, plan.DefaultPolicy(owner))

	// The killed run's writes land after the rerun's read: all but one
	// address. Another owner holds VLAN 200.
	first := objects("first run")
	if _, err := e.c.Apply(ctx, creates(first[:len(first)-1]...)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Apply(ctx, creates(&resource.VLAN{M: resource.Meta{Owner: other}, Group: "leafs", VID: 200, Name: "theirs", Status: "Active"})); err != nil {
		t.Fatal(err)
	}

	res, err := rerun.Apply(ctx, p.Changes)
	theirs := resource.Key{Kind: resource.KindVLAN, Name: resource.VLANKey("leafs", 200)}
	if err == nil || len(res.Errors) != 1 || res.Errors[0].Key != theirs {
		t.Fatalf("rerun: %d refused (%v), want VLAN leafs/200 alone, the other owner's", len(res.Errors), err)
	}
	if want := len(objects("")); res.Written != want {
		t.Errorf("rerun wrote %d objects, want %d", res.Written, want)
	}
	for _, c := range []struct {
		kind   string
		want   int
		filter []string
	}{{"ipam.vlan", 2, nil}, {"ipam.prefix", 1, nil}, {"ipam.ipaddress", 2, nil},
		{"ipam.vrf", 1, []string{"name=site2"}}, {"ipam.vlangroup", 1, []string{"name=floating"}}} {
		if n := e.s.Count(t, c.kind, c.filter...); n != c.want {
			t.Errorf("%d %s, want %d", n, c.kind, c.want)
		}
	}
	after, err := e.c.List(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range plan.Make(desired[:len(desired)-1], after, plan.DefaultPolicy(owner)).Changes {
		t.Errorf("after the rerun the plan still has %s %s %v", ch.Action, ch.Key, ch.Fields)
	}
}
