package netbox

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// writePaths are the creates the tests of lost answers hold or stall: one
// of each kind.
var writePaths = []string{"/api/ipam/vrfs/", "/api/ipam/vlan-groups/", "/api/ipam/vlans/", "/api/ipam/prefixes/", "/api/ipam/ip-addresses/"}

// holdFirst loses the answer of the first create at each of writePaths at
// once, and hands that create to NetBox only after hold: the client, which
// gave up on it, looks for what it wrote while it is still on its way, as
// when NetBox is still writing it.
type holdFirst struct {
	next http.RoundTripper
	hold time.Duration

	mu   sync.Mutex
	held map[string]bool
	late sync.WaitGroup // the held creates, until NetBox answered them
}

func (h *holdFirst) RoundTrip(r *http.Request) (*http.Response, error) {
	h.mu.Lock()
	first := r.Method == http.MethodPost && !h.held[r.URL.Path]
	if first {
		h.held[r.URL.Path] = true
	}
	h.mu.Unlock()
	if !first {
		return h.next.RoundTrip(r)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	late := r.Clone(context.WithoutCancel(r.Context()))
	late.Body, late.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	h.late.Go(func() {
		time.Sleep(h.hold)
		if resp, err := h.next.RoundTrip(late); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	return nil, errors.New("timeout awaiting response headers")
}

// stallFirst stalls NetBox's workers as the first create at each of
// writePaths goes out.
type stallFirst struct {
	next  http.RoundTripper
	stall func(d time.Duration)
	d     time.Duration

	mu      sync.Mutex
	stalled map[string]bool
}

func (s *stallFirst) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	first := r.Method == http.MethodPost && !s.stalled[r.URL.Path]
	if first {
		s.stalled[r.URL.Path] = true
	}
	s.mu.Unlock()
	if first {
		s.stall(s.d)
	}
	return s.next.RoundTrip(r)
}

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
	current, err := e.c.Target(sc).List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{URL: e.s.URL(), Token: e.s.Token()}
	edit(&cfg)
	c, err := New(cfg, e.c.log, WithHTTPClient(&http.Client{Transport: rt}))
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
	after, err := e.c.Target(sc).List(ctx)
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
	h := &holdFirst{next: e.s.Client().Transport, hold: 2 * time.Second, held: map[string]bool{}}
	if h.next == nil {
		h.next = http.DefaultTransport
	}
	applyLosingAnswers(t, e, func(c *Config) { c.RequestDeadline = 30 * time.Second }, h, h.late.Wait)
}

// TestStallLongerThanTheTimeout: NetBox's workers stop as each kind's
// create goes out, for longer than the client's timeout; the client gives
// up on the create, and on its look-ups, while NetBox holds them all.
func TestStallLongerThanTheTimeout(t *testing.T) {
	e := realEnv(t, nil, false)
	s := &stallFirst{next: e.s.Client().Transport, stall: e.s.Staller(t), d: 5 * time.Second, stalled: map[string]bool{}}
	if s.next == nil {
		s.next = http.DefaultTransport
	}
	applyLosingAnswers(t, e, func(c *Config) {
		c.Timeout, c.MaxRetries, c.RequestDeadline = 2*time.Second, 8, 30*time.Second
	}, s, func() {})
}
