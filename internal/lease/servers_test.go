package lease

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/nautobot"
	"github.com/ipsync/ipsync/internal/nautobot/nbtest"
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

// realNetBox is the NetBox of IPSYNC_NETBOX_URL, without lease tags before
// and after the test; t is skipped without one.
func realNetBox(t *testing.T) server {
	t.Helper()
	u, token := os.Getenv("IPSYNC_NETBOX_URL"), os.Getenv("IPSYNC_NETBOX_TOKEN")
	if u == "" || token == "" {
		t.Skip("set IPSYNC_NETBOX_URL and IPSYNC_NETBOX_TOKEN to a NetBox 4.7 (scripts/netbox-up.sh start; token) to run against it")
	}
	base, err := url.Parse(strings.TrimRight(u, "/"))
	if err != nil {
		t.Fatal(err)
	}
	api := jsonAPI{httpapi.New(httpapi.Config{Base: base, Auth: "Bearer " + token, Server: "netbox", Timeout: 30 * time.Second, MaxRetries: 2})}
	clear := func() {
		var page struct {
			Results []tag `json:"results"`
		}
		if _, err := api.Call(context.Background(), http.MethodGet, tagsPath, url.Values{"name__isw": {"ipsync-lease:"}, "limit": {"1000"}}, nil, &page); err != nil {
			t.Fatalf("list lease tags: %v", err)
		}
		for _, tg := range page.Results {
			if _, err := api.Call(context.Background(), http.MethodDelete, tagsPath+string(tg.ID)+"/", nil, nil, nil); err != nil {
				t.Fatalf("delete lease tag %s: %v", tg.Name, err)
			}
		}
	}
	clear()
	t.Cleanup(clear)
	return server{api: api, fields: NetBoxTags}
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
