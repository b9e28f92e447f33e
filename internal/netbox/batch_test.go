package netbox

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// TestBadObjectIsolated writes a batch of 250 IP addresses, one of which
// NetBox refuses: the other 249 are written, the bad one is reported with
// NetBox's message, and it costs one request more, not a bisection.
func TestBadObjectIsolated(t *testing.T) {
	e := realEnv(t, nil, false)
	ctx := context.Background()
	var objs []resource.Object
	for i := range 250 {
		ip := &resource.IPAddress{M: meta(), Namespace: GlobalNamespace, Address: pfx(fmt.Sprintf("10.7.%d.%d/16", i/200, 1+i%200)), Status: "Active"}
		if i == 137 {
			ip.DNSName = "not a dns name!"
		}
		objs = append(objs, ip)
	}
	res, err := e.c.Apply(ctx, creates(objs...))
	if err == nil {
		t.Fatal("Apply succeeded, want the bad object refused")
	}
	if res.Written != 249 || len(res.Errors) != 1 {
		t.Fatalf("Apply wrote %d and refused %d, want 249 and 1: %v", res.Written, len(res.Errors), err)
	}
	bad := res.Errors[0]
	if bad.Key != objs[137].Key() || !strings.Contains(bad.Message, "dns_name") {
		t.Errorf("refused %s: %q, want %s with NetBox's message about dns_name", bad.Key, bad.Message, objs[137].Key())
	}
	if n := e.s.Requests("POST", "/api/ipam/ip-addresses/"); res.Writes != 2 || n != 2 {
		t.Errorf("Apply sent %d write requests (%d seen by the server), want 2: the batch, then the batch without the bad object", res.Writes, n)
	}
	got, err := e.c.List(ctx, scope.Scope{Owner: owner, Kinds: []resource.Kind{resource.KindIPAddress}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 249 {
		t.Errorf("NetBox holds %d IP addresses, want 249", len(got))
	}
}

// TestDeleteInUseIsolated deletes two VLANs, one of which a prefix made by
// hand still uses: NetBox refuses that one (409), and the other is
// deleted.
func TestDeleteInUseIsolated(t *testing.T) {
	e := realEnv(t, nil, false)
	ctx := context.Background()
	objs := []resource.Object{
		&resource.VLANGroup{M: meta(), Name: "del-net"},
		&resource.VLAN{M: meta(), Group: "del-net", VID: 1, Name: "used", Status: "Active"},
		&resource.VLAN{M: meta(), Group: "del-net", VID: 2, Name: "free", Status: "Active"},
	}
	if _, err := e.c.Apply(ctx, creates(objs...)); err != nil {
		t.Fatal(err)
	}
	sc := scope.Scope{Owner: owner, Kinds: []resource.Kind{resource.KindVLAN}}
	current, err := e.c.List(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	cur := byKey(current)
	used, free := cur[objs[1].Key()], cur[objs[2].Key()]
	e.call("POST", "/api/ipam/prefixes/", map[string]any{"prefix": "10.1.0.0/24", "vlan": used.Meta().ID}, nil)

	res, err := e.c.Apply(ctx, []plan.Change{remove(used), remove(free)})
	if err == nil || res.Written != 1 || len(res.Errors) != 1 {
		t.Fatalf("Apply wrote %d and refused %d (%v), want 1 and 1", res.Written, len(res.Errors), err)
	}
	if bad := res.Errors[0]; bad.Key != used.Key() || !strings.Contains(bad.Message, "dependent") {
		t.Errorf("refused %s: %q, want %s refused for its dependent prefix", bad.Key, bad.Message, used.Key())
	}
	after, err := e.c.List(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	if got := byKey(after); got[used.Key()] == nil || got[free.Key()] != nil {
		t.Errorf("after the deletes NetBox holds %v, want only %s", after, used.Key())
	}
}
