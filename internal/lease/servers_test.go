package lease

import (
	"context"
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/nautobot"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/netbox/netboxtest"
	"github.com/ipsync/ipsync/internal/sot"
)

// server is one place a lease lives, with the tag fields it wants.
type server struct {
	api    API
	fields TagFields
}

// eachServer runs fn against each Nautobot servertest gives (the emulator and
// the real servers the environment names) and against the real NetBox
// that IPSYNC_NETBOX_URL names.
func eachServer(t *testing.T, fn func(t *testing.T, srv server)) {
	servertest.Each(t, func(t *testing.T, s *servertest.Server) {
		c, err := nautobot.New(nautobot.Config{Settings: sot.Settings{URL: s.URL(), Token: s.Token()}}, slog.New(slog.DiscardHandler), sot.WithHTTPClient(s.Client()))
		if err != nil {
			t.Fatal(err)
		}
		fn(t, server{api: c, fields: NautobotTags})
	})
	t.Run("netbox", func(t *testing.T) { fn(t, realNetBox(t)) })
}

// realNetBox is the NetBox of IPSYNC_NETBOX_URL, emptied before and after
// the test; t is skipped without one. The lease's requests go out through
// a plain API client: the netbox package takes leases itself (the intents
// of its racy creates), so its client would be an import cycle here.
func realNetBox(t *testing.T) server {
	t.Helper()
	s := netboxtest.New(t)
	base, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	auth := "Token " + s.Token()
	if strings.HasPrefix(s.Token(), "nbt_") {
		auth = "Bearer " + s.Token()
	}
	return server{api: netboxAPI{httpapi.New(httpapi.Config{Base: base, HTTP: s.Client(), Auth: auth, Server: "netbox", MaxRetries: 5})}, fields: NetBoxTags}
}

// netboxAPI is a lease.API over NetBox's REST API.
type netboxAPI struct{ c *httpapi.Client }

func (n netboxAPI) Call(ctx context.Context, method, path string, query url.Values, in, out any) (int, error) {
	return httpapi.Call(ctx, n.c.Do, method, path, query, in, out)
}
