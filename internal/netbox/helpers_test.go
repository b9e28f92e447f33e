package netbox

import (
	"context"
	"log/slog"
	"net/netip"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/netbox/netboxtest"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sot"
)

const owner = resource.Owner("static:deploy")

type env struct {
	t *testing.T
	s *netboxtest.Server
	c *Client
}

// realEnv is a client for the real NetBox of the tests (netboxtest: it
// skips the test without one), emptied before and after the test, with
// the marker bootstrapped unless noBootstrap; edit adjusts the config.
func realEnv(t *testing.T, edit func(*Config), noBootstrap bool) *env {
	t.Helper()
	s := netboxtest.New(t)
	cfg := Config{Settings: sot.Settings{URL: s.URL(), Token: s.Token()}}
	if edit != nil {
		edit(&cfg)
	}
	c, err := New(cfg, slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})), sot.WithHTTPClient(s.Client()))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, s: s, c: c}
	if !noBootstrap {
		if _, err := c.Bootstrap(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	s.ResetCounts()
	return e
}

// empty empties the server again, as between tests.
func (e *env) empty() { e.s.Reset(e.t) }

// call sends a request that must succeed, as a person editing NetBox by
// hand would.
func (e *env) call(method, path string, in, out any) { e.s.Call(e.t, method, path, in, out) }

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

// objectsOf are the objects of a target's read, none if it failed.
func objectsOf(st interface{ Objects() []resource.Object }) []resource.Object {
	if st == nil {
		return nil
	}
	return st.Objects()
}
