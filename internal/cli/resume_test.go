package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/agent"
)

// TestAgentResumesFromItsState stops an agent cleanly (as SIGTERM does)
// and starts it again with agent.state_dir: the second run follows the
// target on from the state the first one saved, reading it by its change
// log, not whole, says so on its status page, and still writes what
// changed in Neutron while no agent ran.
func TestAgentResumesFromItsState(t *testing.T) {
	base := neutronURL(t)
	eachTarget(t, func(t *testing.T, srv *target) {
		stateDir := t.TempDir()
		cfg := targetSiteConfig(t, srv, base, fmt.Sprintf(`policy: {max_delete_min: 50}
agent:
  interval: 24h
  state_dir: %q
`, stateDir))
		mustRun(t, "bootstrap", "--config", cfg, "--commit")
		mustRun(t, "apply", "--config", cfg, "--commit")
		name := fmt.Sprintf("resume-%d", time.Now().UnixNano()%100000)
		first := routedNetwork(t, base, name, 182, 183, "172.31.22.0/24", "172.31.23.0/24")
		t.Cleanup(func() { _ = deleteNetwork(base, first) })

		a := startAgent(t, cfg)
		one := a.firstRun(t)
		if !strings.HasPrefix(one.status.Start, "sweep: no saved state") {
			t.Errorf("first start: %q, want a sweep for want of a state", one.status.Start)
		}
		a.stop(t, 30*time.Second)
		if _, err := os.Stat(filepath.Join(stateDir, "a11.state.json")); err != nil {
			t.Fatalf("no state saved: %v", err)
		}

		second := routedNetwork(t, base, name+"-b", 184, 185, "172.31.24.0/24", "172.31.25.0/24")
		t.Cleanup(func() { _ = deleteNetwork(base, second) })
		b := startAgent(t, cfg)
		two := b.firstRun(t)
		if !strings.HasPrefix(two.status.Start, "resumed from the state saved at") {
			t.Errorf("second start: %q, want resumed", two.status.Start)
		}
		if !one.run.ReadWhole["target"] || two.run.ReadWhole["target"] || !two.run.ReadWhole["neutron"] {
			t.Errorf("read whole: %v by the first sync, %v by the first after resuming; want the target whole only by the first, Neutron by both; log after resuming:\n%s",
				one.run.ReadWhole, two.run.ReadWhole, b.logs.String())
		}
		b.waitFor(t, "write the network made while it was stopped", time.Minute, func() bool {
			vlans := vlansOf(t, srv, "neutron:a11")
			return slices.Contains(vlans, "184") && slices.Contains(vlans, "185")
		})
		t.Logf("first sync: a sweep, %d target requests; after resuming %d", one.run.Reads["target"], two.run.Reads["target"])
		b.stop(t, 30*time.Second)
	})
}

type agentRun struct {
	status agent.Status
	run    agent.RunRecord
}

// firstRun waits for the agent's first sync to succeed and returns it with
// the status then.
func (a *runningAgent) firstRun(t *testing.T) agentRun {
	t.Helper()
	var out agentRun
	a.waitFor(t, "finish its first sync", 2*time.Minute, func() bool {
		code, body := httpGet("http://" + a.listen + "/status.json")
		if code != http.StatusOK || json.Unmarshal([]byte(body), &out.status) != nil || len(out.status.Runs) == 0 {
			return false
		}
		out.run = out.status.Runs[len(out.status.Runs)-1]
		return true
	})
	if out.run.Result != "ok" {
		t.Fatalf("first sync: %s %s; agent log:\n%s", out.run.Result, out.run.Error, a.logs.String())
	}
	return out
}
