package nautobot

import (
	"context"
	"log/slog"
	"net/netip"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/clock/clocktest"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/nautobot/emulator"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sot"
)

const owner = resource.Owner("static:deploy")

type env struct {
	srv   *servertest.Server
	c     *Client
	clock *clocktest.Fake
}

// newEnv starts a seeded emulator and a client for it; edit adjusts the
// client config. The marker is bootstrapped unless noBootstrap.
func newEnv(t *testing.T, edit func(*Config), noBootstrap bool, opts ...emulator.Option) *env {
	t.Helper()
	return newEnvOn(t, servertest.Emulator(t, opts...), edit, noBootstrap)
}

// newEnvOn is newEnv against srv, the emulator or a real server.
func newEnvOn(t *testing.T, srv *servertest.Server, edit func(*Config), noBootstrap bool) *env {
	t.Helper()
	cfg := Config{Settings: sot.Settings{URL: srv.URL(), Token: srv.Token()}}
	if edit != nil {
		edit(&cfg)
	}
	clock := clocktest.NewInstant(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	c, err := New(cfg, slog.New(slog.DiscardHandler), sot.WithHTTPClient(srv.Client()), sot.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	if !noBootstrap {
		if _, err := c.Bootstrap(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	srv.ResetCounts()
	return &env{srv: srv, c: c, clock: clock}
}

func creates(objs ...resource.Object) []plan.Change {
	out := make([]plan.Change, len(objs))
	for i, o := range objs {
		e, _ := resource.New(o.Kind())
		out[i] = plan.Change{Action: plan.Create, Key: o.Key(), Desired: o, Fields: o.Diff(e)}
	}
	return out
}

func update(desired, current resource.Object, a plan.Action) plan.Change {
	return plan.Change{Action: a, Key: desired.Key(), Desired: desired, Current: current, Fields: desired.Diff(current)}
}

func remove(current resource.Object) plan.Change {
	return plan.Change{Action: plan.Delete, Key: current.Key(), Current: current}
}

func pfx(s string) netip.Prefix { return netip.MustParsePrefix(s) }

func meta() resource.Meta { return resource.Meta{Owner: owner} }

// byKey indexes objects by natural key.
func byKey(objs []resource.Object) map[resource.Key]resource.Object {
	m := make(map[resource.Key]resource.Object, len(objs))
	for _, o := range objs {
		m[o.Key()] = o
	}
	return m
}

// sameAs fails unless current holds every desired object, equal field by
// field and carrying the owner marker.
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

// sendWith rebuilds e's request loop after edit: another transport
// between client and server, or a fixed jitter.
func (e *env) sendWith(edit func(*httpapi.Config)) {
	edit(&e.c.httpCfg)
	e.c.api = httpapi.New(e.c.httpCfg)
}

// objectsOf are the objects of a target's read, none if it failed.
func objectsOf(st interface{ Objects() []resource.Object }) []resource.Object {
	if st == nil {
		return nil
	}
	return st.Objects()
}
