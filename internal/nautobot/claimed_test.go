package nautobot

import (
	"context"
	"testing"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// TestRerunFindsItsEarlierRunsWrites: a run killed mid-apply (or whose
// answers were lost) has its creates committed after the rerun read the
// target, so the rerun's creates of the same objects clash. Those whose
// key an object of the same owner holds are that run's writes: the rerun
// updates them to its plan and reports them written, with no refusal and
// no duplicate. A key another owner holds stays refused.
func TestRerunFindsItsEarlierRunsWrites(t *testing.T) {
	servertest.Each(t, rerunFindsItsEarlierRunsWrites)
}

func rerunFindsItsEarlierRunsWrites(t *testing.T, srv *servertest.Server) {
	ctx := context.Background()
	const other = resource.Owner("static:other")
	killed, rerun := newEnvOn(t, srv, nil, false).c, newEnvOn(t, srv, nil, true).c
	sc := scope.Scope{Owner: owner, Namespaces: []string{"site"}, VLANGroups: []string{"leafs"}}
	objects := func(description string) []resource.Object {
		return []resource.Object{
			&resource.Namespace{M: meta(), Name: "site", Description: description},
			&resource.VLANGroup{M: meta(), Name: "leafs", Location: "a11", Description: description},
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
	desired := append(objects("rerun"), &resource.VLAN{M: meta(), Group: "leafs", VID: 200, Name: "theirs", Status: "Active"})
	p := plan.Make(desired, current, plan.DefaultPolicy(owner))

	// The killed run's writes land now, after the rerun's read: all but
	// one address, which it never got to. Another owner holds VLAN 200.
	first := objects("first run")
	if _, err := killed.Apply(ctx, creates(first[:len(first)-1]...)); err != nil {
		t.Fatal(err)
	}
	if _, err := killed.Apply(ctx, creates(&resource.VLAN{M: resource.Meta{Owner: other}, Group: "leafs", VID: 200, Name: "theirs", Status: "Active"})); err != nil {
		t.Fatal(err)
	}

	res, err := rerun.Apply(ctx, p.Changes)
	theirs := resource.Key{Kind: resource.KindVLAN, Name: resource.VLANKey("leafs", 200)}
	if err == nil || len(res.Errors) != 1 || res.Errors[0].Key != theirs {
		t.Fatalf("rerun: %d refused (%v), want VLAN leafs/200 alone, the other owner's", len(res.Errors), err)
	}
	if res.Written != len(desired)-1 {
		t.Errorf("rerun wrote %d objects, want %d", res.Written, len(desired)-1)
	}
	for _, c := range []struct {
		kind, field, value string
		want               int
	}{
		{"ipam.namespace", "name", "site", 1}, {"ipam.vlangroup", "name", "leafs", 1}, {"ipam.vlan", "", "", 2},
		{"ipam.prefix", "", "", 1}, {"ipam.ipaddress", "", "", 2},
	} {
		n := 0
		for _, o := range srv.Objects(t, c.kind) {
			if c.field == "" || o[c.field] == c.value {
				n++
			}
		}
		if n != c.want {
			t.Errorf("%d %s objects, want %d", n, c.kind, c.want)
		}
	}
	after, err := newEnvOn(t, srv, nil, true).c.List(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	left := plan.Make(desired[:len(desired)-1], after, plan.DefaultPolicy(owner))
	for _, ch := range left.Changes {
		t.Errorf("after the rerun the plan still has %s %s %v", ch.Action, ch.Key, ch.Fields)
	}
}
