package nautobot

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/serverstall"
)

// lostAnswerPaths are the creates the tests of lost answers hold or
// stall: one of each kind.
var lostAnswerPaths = []string{"/api/ipam/namespaces/", "/api/ipam/vlan-groups/", "/api/ipam/vlans/", "/api/ipam/prefixes/", "/api/ipam/ip-addresses/"}

// TestStallLongerThanTheTimeout: the server stalls (its workers stopped)
// as each kind's create goes out, for longer than the client's timeout.
// The create is then still in the server's hands while the client gives
// up, looks for what it wrote and sends it again. Every kind ends written
// once, reported written, with no refusal and nothing left to plan.
func TestStallLongerThanTheTimeout(t *testing.T) {
	servertest.Each(t, func(t *testing.T, srv *servertest.Server) {
		staller := srv.Staller(t)
		stall := &serverstall.StallFirst{Next: transportOf(srv), Paths: lostAnswerPaths,
			Stall: func(path string) { staller(http.MethodPost, path, 3*time.Second) }}
		applyLosingAnswers(t, srv, stall, func() {})
		if stall.Stalled() != len(lostAnswerPaths) {
			t.Errorf("%d of the %d kinds' creates were stalled", stall.Stalled(), len(lostAnswerPaths))
		}
	})
}

// TestLostAnswerWhileStillRunning: each kind's create loses its answer
// at once and reaches the server two seconds later, while the client
// looks for it and sends it again: Nautobot refuses the second copy of
// every key ipsync writes, and the refusal is taken for the first
// attempt's write.
func TestLostAnswerWhileStillRunning(t *testing.T) {
	servertest.Each(t, func(t *testing.T, srv *servertest.Server) {
		hold := &serverstall.HoldFirst{Next: transportOf(srv), Paths: lostAnswerPaths, Hold: 2 * time.Second}
		applyLosingAnswers(t, srv, hold, hold.Wait)
		if hold.Held() != len(lostAnswerPaths) {
			t.Errorf("%d of the %d kinds' creates lost their answers", hold.Held(), len(lostAnswerPaths))
		}
	})
}

func transportOf(srv *servertest.Server) http.RoundTripper {
	if c := srv.Client(); c != nil && c.Transport != nil {
		return c.Transport
	}
	return http.DefaultTransport
}

// applyLosingAnswers plans one object of each kind and applies the plan
// with its writes sent through rt, on a short timeout, then checks that
// each object was written once, reported written, and that nothing is
// left to plan. settle waits for requests still on their way.
func applyLosingAnswers(t *testing.T, srv *servertest.Server, rt http.RoundTripper, settle func()) {
	t.Helper()
	ctx := context.Background()
	e := newEnvOn(t, srv, nil, false)
	sc := scope.Scope{Owner: owner, Namespaces: []string{"site"}, VLANGroups: []string{"floating"}}
	// Connected and planned with the usual timeout (Nautobot's status
	// answers in about a second); the writes go out with a short one, on
	// the wall clock, as a client that gives up on a stalled server.
	current, err := e.c.List(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	e.sendWith(func(c *httpapi.Config) {
		c.Timeout, c.MaxRetries, c.Clock, c.HTTP = time.Second, 8, clock.Real(), &http.Client{Transport: rt}
	})
	desired := []resource.Object{
		&resource.Namespace{M: meta(), Name: "site"},
		&resource.VLANGroup{M: meta(), Name: "floating"},
		&resource.VLAN{M: meta(), Group: "floating", VID: 100, Name: "net-100", Status: "Active"},
		&resource.Prefix{M: meta(), Namespace: "site", Prefix: pfx("10.0.1.0/24"), Type: resource.PrefixNetwork, Status: "Active",
			VLAN: resource.VLANKey("floating", 100)},
		&resource.IPAddress{M: meta(), Namespace: "site", Address: pfx("10.0.1.5/24"), Status: "Active"},
		&resource.IPAddress{M: meta(), Namespace: "site", Address: pfx("10.0.1.6/24"), Status: "Active"},
	}
	res, err := e.c.Apply(ctx, plan.Make(desired, current, plan.DefaultPolicy(owner)).Changes)
	settle()
	if err != nil || len(res.Errors) != 0 {
		t.Fatalf("Apply: %v, refused %v", err, res.Errors)
	}
	for _, p := range lostAnswerPaths {
		t.Logf("%s: %d POST", p, srv.Requests(http.MethodPost, p))
	}
	if res.Written != len(desired) {
		t.Errorf("wrote %d objects, want %d", res.Written, len(desired))
	}
	for kind, want := range map[string]int{"ipam.namespace": 1, "ipam.vlangroup": 1, "ipam.vlan": 1, "ipam.prefix": 1, "ipam.ipaddress": 2} {
		n := 0
		for _, o := range srv.Objects(t, kind) {
			if kind != "ipam.namespace" || o["name"] == "site" {
				n++
			}
		}
		if n != want {
			t.Errorf("%d %s objects, want %d", n, kind, want)
		}
	}
	after, err := newEnvOn(t, srv, nil, true).c.List(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range plan.Make(desired, after, plan.DefaultPolicy(owner)).Changes {
		t.Errorf("after the apply the plan still has %s %s %v", ch.Action, ch.Key, ch.Fields)
	}
}
