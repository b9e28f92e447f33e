package cli

import (
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/netbox/netboxtest"
)

// TestDemoOnNetBox runs `ipsync demo --target netbox` against the real
// NetBox, twice: the examples' NetBox flavour is accepted whole, and the
// second run finds them in place.
func TestDemoOnNetBox(t *testing.T) {
	srv := netboxtest.New(t)
	env := map[string]string{"IPSYNC_NETBOX_TOKEN": srv.Token()}
	for i := range 2 {
		code, out, errOut := run(t, env, "demo", "--target", "netbox", "--url", srv.URL())
		if code != ExitOK || !strings.Contains(out, "static:demo: in agreement") || !strings.Contains(out, "a real server") {
			t.Fatalf("demo --target netbox, run %d: exit %d\n%s\n%s", i+1, code, out, errOut)
		}
	}
}

func TestDemoFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"demo", "--target", "netbox"}, nil, "--target netbox needs --url"},
		{[]string{"demo", "--target", "netbox", "--url", "http://127.0.0.1:1"}, nil, "IPSYNC_NETBOX_TOKEN"},
		{[]string{"demo", "--url", "http://127.0.0.1:1"}, nil, "--url is for --target netbox"},
		{[]string{"demo", "--target", "infrahub"}, nil, "want nautobot (the built-in emulator) or netbox"},
	} {
		if code, _, errOut := run(t, tt.env, tt.args...); code != ExitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("ipsync %s = exit %d, want %d saying %q:\n%s", strings.Join(tt.args, " "), code, ExitUsage, tt.want, errOut)
		}
	}
}
