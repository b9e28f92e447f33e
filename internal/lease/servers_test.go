package lease

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/nautobot"
	"github.com/ipsync/ipsync/internal/nautobot/nbtest"
	"github.com/ipsync/ipsync/internal/netbox/netboxtest"
)

// server is one place a lease lives, with the tag fields it wants.
type server struct {
	api    API
	fields TagFields
}

// eachServer runs fn against each Nautobot nbtest gives (the emulator and
// the real servers the environment names) and against the real NetBox
// that IPSYNC_NETBOX_URL names.
func eachServer(t *testing.T, fn func(t *testing.T, srv server)) {
	nbtest.Each(t, func(t *testing.T, s *nbtest.Server) {
		c, err := nautobot.New(nautobot.Config{URL: s.URL(), Token: s.Token()}, slog.New(slog.DiscardHandler), nautobot.WithHTTPClient(s.Client()))
		if err != nil {
			t.Fatal(err)
		}
		fn(t, server{api: c, fields: NautobotTags})
	})
	t.Run("netbox", func(t *testing.T) { fn(t, realNetBox(t)) })
}

// realNetBox is the NetBox of IPSYNC_NETBOX_URL, emptied before and after
// the test; t is skipped without one.
func realNetBox(t *testing.T) server {
	t.Helper()
	s := netboxtest.New(t)
	base, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	c := httpapi.New(httpapi.Config{Base: base, Auth: netboxtest.Authorization(s.Token()), Server: "netbox", Timeout: 30 * time.Second, MaxRetries: 2})
	return server{api: jsonAPI{c}, fields: NetBoxTags}
}

// jsonAPI is API over the shared request loop, as a target adapter's Call
// is, for a server without one in this test.
type jsonAPI struct{ c *httpapi.Client }

func (a jsonAPI) Call(ctx context.Context, method, path string, query url.Values, in, out any) (int, error) {
	r := httpapi.Request{Method: method, Path: path, Query: query}
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			return 0, err
		}
		r.Body = func(context.Context, int, bool) ([]byte, bool, error) { return raw, false, nil }
	}
	resp, err := a.c.Do(ctx, r)
	if err != nil {
		return 0, err
	}
	if resp.Status >= 300 {
		return resp.Status, r.Error(resp)
	}
	if out != nil {
		if err := json.Unmarshal(resp.Body, out); err != nil {
			return resp.Status, fmt.Errorf("%s %s: %w", method, path, err)
		}
	}
	return resp.Status, nil
}
