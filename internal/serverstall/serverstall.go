// Package serverstall stalls the workers of a real server that a test
// runs against, through the command its start script offers
// (scripts/nautobot-up.sh stall SECONDS, scripts/netbox-up.sh stall
// SECONDS): requests the server holds or queues then are still being
// processed after a client gave up on them, the server-side half of a
// lost answer, which no proxy in front of the server can show.
package serverstall

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Run stops the workers of the server command stalls for d, and returns
// once they are stopped; they go on by themselves after d. A failure is
// reported on tb without stopping the caller, which may be a transport's
// goroutine rather than the test's own.
func Run(tb testing.TB, command string, d time.Duration) {
	tb.Helper()
	cmd := exec.Command("sh", "-c", fmt.Sprintf("%s %.1f", command, d.Seconds()))
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Errorf("stall the server (%s): %v\n%s", command, err, strings.TrimSpace(string(out)))
	}
}
