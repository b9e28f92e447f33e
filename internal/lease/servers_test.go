package lease

import (
	"log/slog"
	"testing"

	"github.com/ipsync/ipsync/internal/nautobot"
	"github.com/ipsync/ipsync/internal/nautobot/nbtest"
	"github.com/ipsync/ipsync/internal/netbox"
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
	c, err := netbox.New(netbox.Config{URL: s.URL(), Token: s.Token()}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return server{api: c, fields: NetBoxTags}
}
