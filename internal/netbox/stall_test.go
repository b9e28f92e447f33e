package netbox

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/serverstall"
	"github.com/ipsync/ipsync/internal/sot"
)

// writePaths are the creates the tests of lost answers hold or stall: one
// of each kind.
var writePaths = []string{"/api/ipam/vrfs/", "/api/ipam/vlan-groups/", "/api/ipam/vlans/", "/api/ipam/prefixes/", "/api/ipam/ip-addresses/"}

// lostAnswerObjects are one object of each kind, with the kinds NetBox
// keeps no key of unique (a VRF, a VLAN group without a scope) and those
// it checks only before the write (a prefix, addresses).
func lostAnswerObjects() []resource.Object {
	return []resource.Object{
		&resource.Namespace{M: meta(), Name: "site"},
		&resource.VLANGroup{M: meta(), Name: "floating"},
		&resource.VLANGroup{M: meta(), Name: "leafs", Location: "a11"},
		&resource.VLAN{M: meta(), Group: "leafs", VID: 100, Name: "net-100", Status: "Active"},
		&resource.Prefix{M: meta(), Namespace: "site", Prefix: pfx("10.0.1.0/24"), Type: resource.PrefixNetwork, Status: "Active",
			VLAN: resource.VLANKey("leafs", 100)},
		&resource.IPAddress{M: meta(), Namespace: "site", Address: pfx("10.0.1.5/24"), Status: "Active"},
		&resource.IPAddress{M: meta(), Namespace: "site", Address: pfx("10.0.1.6/24"), Status: "Active"},
	}
}

// applyLosingAnswers plans lostAnswerObjects with e's client and applies
// the plan through a client sending with rt and edit's settings, then
// checks that each object was written once, reported written, and that
// nothing is left to plan. settle waits for requests still on their way.
func applyLosingAnswers(t *testing.T, e *env, edit func(*Config), rt http.RoundTripper, settle func()) {
	t.Helper()
	ctx := context.Background()
	sc := scope.Scope{Owner: owner, Namespaces: []string{"site"}, VLANGroups: []string{"floating", "leafs"}}
	desired := lostAnswerObjects()
	current, err := e.c.List(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Settings: sot.Settings{URL: e.s.URL(), Token: e.s.Token()}}
	edit(&cfg)
	c, err := New(cfg, e.c.log, sot.WithHTTPClient(&http.Client{Transport: rt}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Apply(ctx, plan.Make(desired, current, plan.DefaultPolicy(owner)).Changes)
	settle()
	if err != nil || len(res.Errors) != 0 {
		t.Fatalf("Apply: %v, refused %v", err, res.Errors)
	}
	if res.Written != len(desired) {
		t.Errorf("wrote %d objects, want %d", res.Written, len(desired))
	}
	for _, p := range writePaths {
		t.Logf("%s: %d POST", p, e.s.Requests(http.MethodPost, p))
	}
	for _, c := range []struct {
		kind   string
		want   int
		filter []string
	}{{"ipam.vrf", 1, []string{"name=site"}}, {"ipam.vlangroup", 1, []string{"name=floating"}}, {"ipam.vlangroup", 1, []string{"name=leafs"}},
		{"ipam.vlan", 1, nil}, {"ipam.prefix", 1, nil}, {"ipam.ipaddress", 2, nil}} {
		if n := e.s.Count(t, c.kind, c.filter...); n != c.want {
			t.Errorf("%d %s %v, want %d", n, c.kind, c.filter, c.want)
		}
	}
	after, err := e.c.List(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range plan.Make(desired, after, plan.DefaultPolicy(owner)).Changes {
		t.Errorf("after the apply the plan still has %s %s %v", ch.Action, ch.Key, ch.Fields)
	}
}

// TestLostAnswerWhileStillRunning: each kind's create loses its answer
// while NetBox has yet to write it. Sent again at once, NetBox would keep
// both copies of a VRF and of a group without a scope, and could of a
// prefix or an address (its duplicate check sees no uncommitted write):
// the client looks for the first attempt's objects until they appear, and
// sends nothing again.
func TestLostAnswerWhileStillRunning(t *testing.T) {
	e := realEnv(t, nil, false)
	h := &serverstall.HoldFirst{Next: e.s.Client().Transport, Paths: writePaths, Hold: 2 * time.Second}
	if h.Next == nil {
		h.Next = http.DefaultTransport
	}
	applyLosingAnswers(t, e, func(c *Config) { c.RequestDeadline = 30 * time.Second }, h, h.Wait)
}

// TestStallLongerThanTheTimeout: NetBox's workers stop as each kind's
// create goes out, for longer than the client's timeout; the client gives
// up on the create, and on its look-ups, while NetBox holds them all.
func TestStallLongerThanTheTimeout(t *testing.T) {
	e := realEnv(t, nil, false)
	stall := e.s.Staller(t)
	s := &serverstall.StallFirst{Next: e.s.Client().Transport, Paths: writePaths, Stall: func(string) { stall(5 * time.Second) }}
	if s.Next == nil {
		s.Next = http.DefaultTransport
	}
	applyLosingAnswers(t, e, func(c *Config) {
		c.Timeout, c.MaxRetries, c.RequestDeadline = 2*time.Second, 8, 30*time.Second
	}, s, func() {})
	if s.Stalled() != len(writePaths) {
		t.Errorf("%d of the %d kinds' creates were stalled", s.Stalled(), len(writePaths))
	}
}
