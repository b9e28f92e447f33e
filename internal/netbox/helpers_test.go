package netbox

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

const owner = resource.Owner("static:deploy")

// seedTags are the tags the test server is seeded with; every other tag
// is made by tests or ipsync.
var seedTags = []string{"blue", "pxe", "red", "routed"}

type env struct {
	t *testing.T
	c *Client
}

// realEnv is a client for the NetBox named by IPSYNC_NETBOX_URL and
// IPSYNC_NETBOX_TOKEN, emptied of what tests and ipsync make before and
// after the test, with the marker bootstrapped unless noBootstrap. It
// skips the test without them.
func realEnv(t *testing.T, edit func(*Config), noBootstrap bool) *env {
	t.Helper()
	u, tok := os.Getenv("IPSYNC_NETBOX_URL"), os.Getenv("IPSYNC_NETBOX_TOKEN")
	if u == "" || tok == "" {
		t.Skip("no real NetBox: set IPSYNC_NETBOX_URL and IPSYNC_NETBOX_TOKEN (scripts/netbox-up.sh start; scripts/netbox-up.sh token)")
	}
	cfg := Config{URL: u, Token: tok}
	if edit != nil {
		edit(&cfg)
	}
	c, err := New(cfg, slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, c: c}
	e.empty()
	t.Cleanup(e.empty)
	if !noBootstrap {
		if _, err := c.Bootstrap(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// empty deletes the objects tests and ipsync make, children first.
func (e *env) empty() {
	e.t.Helper()
	for _, path := range []string{"/api/ipam/ip-addresses/", "/api/ipam/prefixes/", "/api/ipam/vlans/", "/api/ipam/vlan-groups/",
		"/api/ipam/vrfs/", "/api/ipam/asns/", pathCustomFields, pathTags} {
		objs, err := sweep[named](context.Background(), e.c, path, url.Values{"fields": {"id,name"}}, nil)
		if err != nil {
			e.t.Fatalf("empty netbox: %v", err)
		}
		var ids []map[string]any
		for _, o := range objs {
			if path == pathTags && slices.Contains(seedTags, o.Name) {
				continue
			}
			ids = append(ids, map[string]any{"id": o.ID})
		}
		for lo := 0; lo < len(ids); lo += 500 {
			if _, err := e.c.Call(context.Background(), http.MethodDelete, path, nil, ids[lo:min(lo+500, len(ids))], nil); err != nil {
				e.t.Fatalf("empty netbox: %v", err)
			}
		}
	}
}

// call sends a request that must succeed, as a person editing NetBox by
// hand would.
func (e *env) call(method, path string, in, out any) {
	e.t.Helper()
	if _, err := e.c.Call(context.Background(), method, path, nil, in, out); err != nil {
		e.t.Fatal(err)
	}
}

func creates(objs ...resource.Object) []plan.Change {
	out := make([]plan.Change, len(objs))
	for i, o := range objs {
		e, _ := resource.New(o.Kind())
		out[i] = plan.Change{Action: plan.Create, Key: o.Key(), Desired: o, Fields: o.Diff(e)}
	}
	return out
}

func update(desired, current resource.Object) plan.Change {
	return plan.Change{Action: plan.Update, Key: desired.Key(), Desired: desired, Current: current, Fields: desired.Diff(current)}
}

func remove(current resource.Object) plan.Change {
	return plan.Change{Action: plan.Delete, Key: current.Key(), Current: current}
}

func pfx(s string) netip.Prefix { return netip.MustParsePrefix(s) }

func meta() resource.Meta { return resource.Meta{Owner: owner} }

func byKey(objs []resource.Object) map[resource.Key]resource.Object {
	m := make(map[resource.Key]resource.Object, len(objs))
	for _, o := range objs {
		m[o.Key()] = o
	}
	return m
}

// sameAs fails unless current holds every desired object, equal field by
// field and carrying the owner marker, an id and a version.
func sameAs(t *testing.T, desired, current []resource.Object) {
	t.Helper()
	cur := byKey(current)
	for _, d := range desired {
		c, ok := cur[d.Key()]
		if !ok {
			t.Errorf("%s: not read back", d.Key())
			continue
		}
		if diff := d.Diff(c); diff != nil {
			t.Errorf("%s: read back with differences %v", d.Key(), diff)
		}
		if c.Meta().Owner != d.Meta().Owner || c.Meta().ID == "" || c.Meta().Version == "" {
			t.Errorf("%s: meta %+v, want owner %q with id and version", d.Key(), c.Meta(), d.Meta().Owner)
		}
	}
}

// testWriter logs to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
