package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/netbox/netboxtest"
)

// TestConfigPointedAtTheOtherServer: a netbox section whose URL is a
// Nautobot, or a nautobot section whose URL is a NetBox, is told so by
// plan, with what to change, instead of a 404 or an empty version.
func TestConfigPointedAtTheOtherServer(t *testing.T) {
	examples := filepath.Join(repoRoot, "examples")
	check := func(t *testing.T, section, url, token, want string) {
		cfg := serverConfig(t, section, url, token, examples, "")
		code, _, stderr := run(t, nil, "plan", "--config", cfg)
		if code != ExitError || !strings.Contains(stderr, want) {
			t.Errorf("plan with a %s section at %s: exit %d, want %d and %q:\n%s", section, url, code, ExitError, want, stderr)
		}
	}
	eachNautobot(t, func(t *testing.T, srv *servertest.Server) {
		check(t, "netbox", srv.URL(), srv.Token(), "looks like Nautobot")
	})
	t.Run("netbox", func(t *testing.T) {
		srv := netboxtest.New(t)
		check(t, "nautobot", srv.URL(), srv.Token(), "looks like NetBox 4.7")
		// A Nautobot token: NetBox refuses it in words of its own.
		check(t, "nautobot", srv.URL(), "0123456789abcdef0123456789abcdef01234567", "looks like NetBox, not Nautobot")
	})
}
