package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/nautobot/emulator/emulatortest"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
)

// TestProgressWhileTheServerWrites: without a terminal and at the default
// log level, an apply whose bulk write the server holds for longer than
// the progress interval says so while it waits, and its last line counts
// every object written.
func TestProgressWhileTheServerWrites(t *testing.T) {
	srv := servertest.Emulator(t)
	e := newSpecEnv(t, srv)
	e.vlans(t, 40, "")
	srv.Emulator().Inject(emulatortest.Fault{Method: "POST", PathPrefix: "/api/ipam/vlans/", Latency: 6 * time.Second, Times: 1})
	code, _, stderr := run(t, nil, "apply", "--config", e.cfg, "--commit")
	if code != ExitOK {
		t.Fatalf("apply: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		`msg=progress what="write vlan" done=0 total=40`, "waiting=5s",
		`msg=progress what="write vlan" done=40 total=40`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("apply's stderr lacks %q:\n%s", want, stderr)
		}
	}
}
