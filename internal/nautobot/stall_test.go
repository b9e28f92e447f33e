package nautobot

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/nautobot/nbtest"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// stallFirst stalls the server as the first create at each of paths goes
// out: the create reaches a server that holds it past the client's
// timeout and handles it after, while the client looks for what it wrote
// and decides whether to send it again.
type stallFirst struct {
	next  http.RoundTripper
	stall func(method, path string, d time.Duration)
	d     time.Duration

	mu    sync.Mutex
	paths map[string]bool // not stalled yet
}

func (s *stallFirst) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	hit := r.Method == http.MethodPost && s.paths[r.URL.Path]
	if hit {
		delete(s.paths, r.URL.Path)
	}
	s.mu.Unlock()
	if hit {
		s.stall(r.Method, r.URL.Path, s.d)
	}
	return s.next.RoundTrip(r)
}

// TestStallLongerThanTheTimeout: the server stalls (its workers stopped)
// as each kind's create goes out, for longer than the client's timeout.
// The create is then still in the server's hands while the client gives
// up, looks for what it wrote and sends it again. Every kind ends written
// once, reported written, with no refusal and nothing left to plan.
func TestStallLongerThanTheTimeout(t *testing.T) { nbtest.Each(t, stallLongerThanTheTimeout) }

func stallLongerThanTheTimeout(t *testing.T, srv *nbtest.Server) {
	ctx := context.Background()
	kinds := []string{"/api/ipam/namespaces/", "/api/ipam/vlan-groups/", "/api/ipam/vlans/", "/api/ipam/prefixes/", "/api/ipam/ip-addresses/"}
	paths := map[string]bool{}
	for _, p := range kinds {
		paths[p] = true
	}
	next := srv.Client().Transport
	if next == nil {
		next = http.DefaultTransport
	}
	stall := &stallFirst{next: next, stall: srv.Staller(t), d: 3 * time.Second, paths: paths}
	e := newEnvOn(t, srv, nil, false)
	sc := scope.Scope{Owner: owner, Namespaces: []string{"site"}, VLANGroups: []string{"floating"}}
	// Connected and planned with the usual timeout (Nautobot's status
	// answers in about a second); the writes go out with a short one, on
	// the wall clock, as a client that gives up on a stalled server.
	current, err := e.c.Target(sc).List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e.sendWith(func(c *httpapi.Config) {
		c.Timeout, c.MaxRetries, c.Clock, c.HTTP = time.Second, 8, clock.Real(), &http.Client{Transport: stall}
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
	if err != nil || len(res.Errors) != 0 {
		t.Fatalf("Apply: %v, refused %v", err, res.Errors)
	}
	if len(stall.paths) != 0 {
		t.Fatalf("creates at %v were never sent", stall.paths)
	}
	for _, p := range kinds {
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
	after, err := newEnvOn(t, srv, nil, true).c.Target(sc).List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range plan.Make(desired, after, plan.DefaultPolicy(owner)).Changes {
		t.Errorf("after the stalled apply the plan still has %s %s %v", ch.Action, ch.Key, ch.Fields)
	}
}
