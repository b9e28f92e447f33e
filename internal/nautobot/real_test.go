package nautobot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/sot"
)

// Tests that only a real Nautobot can answer run through servertest.EachReal.
// Besides the emptying servertest does around each test, each makes its own
// marker (tag and custom fields with unique names), names its objects
// uniquely, and deletes what it made outside what servertest empties.

// realEnv is a client for a real Nautobot with a marker of its own.
type realEnv struct {
	t *testing.T
	c *Client
	// uniq is a suffix that makes the test's names its own.
	uniq  string
	after []func(context.Context) // run at cleanup after the marked objects are gone, last first
}

// newRealEnv connects to srv, a real Nautobot, with a
// marker named after the test run, bootstrapped; edit adjusts the client
// config. At cleanup it deletes every object carrying the marker tag,
// then what the test registered with created, then the marker.
func newRealEnv(t *testing.T, srv *servertest.Server, edit func(*Config)) *realEnv {
	t.Helper()
	u, token := srv.URL(), srv.Token()
	uniq := uniqueSuffix(t)
	cfg := Config{Settings: sot.Settings{URL: u, Token: token, Tag: "ipsync-t-" + uniq, OwnerField: "ipsync_t_" + uniq, VNIField: "ipsync_t_" + uniq + "_vni"}}
	if edit != nil {
		edit(&cfg)
	}
	c, err := New(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	e := &realEnv{t: t, c: c, uniq: uniq}
	t.Cleanup(e.cleanup)
	if _, err := c.Bootstrap(context.Background()); err != nil {
		t.Fatalf("bootstrap: %v", err)
	}
	return e
}

func uniqueSuffix(t *testing.T) string {
	t.Helper()
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// name is base made unique to this test run.
func (e *realEnv) name(base string) string { return base + "-" + e.uniq }

// created registers an object the test made outside its marker, to be
// deleted at cleanup (after the marked objects, last first).
func (e *realEnv) created(path, id string) {
	e.after = append(e.after, func(ctx context.Context) {
		if code, err := e.c.Call(ctx, http.MethodDelete, path+id+"/", nil, nil, nil); err != nil && code != http.StatusNotFound {
			e.t.Errorf("cleanup: delete %s%s: %v", path, id, err)
		}
	})
}

// create POSTs body to path, registers the object for cleanup and
// returns its id.
func (e *realEnv) create(path string, body map[string]any) string {
	e.t.Helper()
	var out struct {
		ID string `json:"id"`
	}
	if _, err := e.c.Call(context.Background(), http.MethodPost, path, nil, body, &out); err != nil {
		e.t.Fatalf("create %s: %v", path, err)
	}
	e.created(path, out.ID)
	return out.ID
}

// stored reads the objects of path that query matches, as Nautobot
// renders them at depth 0 (with many-to-many fields).
func (e *realEnv) stored(path string, query url.Values) []map[string]any {
	e.t.Helper()
	q := url.Values{"limit": {"1000"}, "depth": {"0"}, "exclude_m2m": {"false"}}
	for k, v := range query {
		q[k] = v
	}
	var page struct {
		Count   int              `json:"count"`
		Results []map[string]any `json:"results"`
	}
	if _, err := e.c.Call(context.Background(), http.MethodGet, path, q, nil, &page); err != nil {
		e.t.Fatalf("read %s: %v", path, err)
	}
	if page.Count != len(page.Results) {
		e.t.Fatalf("read %s: %d of %d objects in one page", path, len(page.Results), page.Count)
	}
	return page.Results
}

// cleanup deletes the marked objects, children first, then what the
// test registered, then the marker itself.
func (e *realEnv) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	kinds := slices.Clone(sot.Kinds())
	slices.Reverse(kinds)
	for _, k := range kinds {
		ep, _ := endpointOf(k)
		got, err := sweep[written](ctx, e.c, ep.path, url.Values{"tags": {e.c.cfg.Tag}}, nil)
		if apiErr, ok := errors.AsType[*APIError](err); ok && apiErr.Status == http.StatusNotFound {
			continue // no BGP plugin
		}
		if err != nil {
			e.t.Errorf("cleanup: list %s: %v", ep.path, err)
			continue
		}
		for lo := 0; lo < len(got); lo += 100 {
			var ids []map[string]string
			for _, w := range got[lo:min(lo+100, len(got))] {
				ids = append(ids, map[string]string{"id": w.ID})
			}
			if _, err := e.c.Call(ctx, http.MethodDelete, ep.path, nil, ids, nil); err != nil {
				e.t.Errorf("cleanup: delete %d of %s: %v", len(ids), ep.path, err)
			}
		}
	}
	for i := len(e.after) - 1; i >= 0; i-- {
		e.after[i](ctx)
	}
	e.after = nil
	fields, err := sweep[wireMarker](ctx, e.c, pathCustomFields, nil, nil)
	if err != nil {
		e.t.Errorf("cleanup: list custom fields: %v", err)
	}
	for _, f := range fields {
		if f.Key == e.c.cfg.OwnerField || f.Key == e.c.cfg.VNIField {
			e.created(pathCustomFields, f.ID)
		}
	}
	tags, err := sweep[wireMarker](ctx, e.c, pathTags, url.Values{"name": {e.c.cfg.Tag}}, nil)
	if err != nil {
		e.t.Errorf("cleanup: list tags: %v", err)
	}
	for _, tag := range tags {
		if tag.Name == e.c.cfg.Tag {
			e.created(pathTags, tag.ID)
		}
	}
	for _, f := range e.after {
		f(ctx)
	}
}
