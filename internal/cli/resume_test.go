package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
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
// changed in Neutron while no agent ran. With Neutron's notifications,
// Neutron too is followed on from: its queue kept what was sent while
// the agent was down.
func TestAgentResumesFromItsState(t *testing.T) {
	base := neutronURL(t)
	t.Run("without notifications", func(t *testing.T) {
		eachTarget(t, func(t *testing.T, srv *target) { resumeScenario(t, srv, base, "", nil, true) })
	})
	t.Run("notified", func(t *testing.T) {
		amqp := notifiedBroker(t)
		eachTarget(t, func(t *testing.T, srv *target) { resumeScenario(t, srv, base, amqp, nil, false) })
	})
}

// TestAgentResumeAfterBrokerRestart: a RabbitMQ restart while the agent
// is down drops its queue's binding and what Neutron sent until the
// agent bound it again; the agent tells, reads Neutron whole and still
// writes what changed meanwhile.
func TestAgentResumeAfterBrokerRestart(t *testing.T) {
	base := neutronURL(t)
	amqp := notifiedBroker(t)
	script := os.Getenv("IPSYNC_RABBITMQ_SCRIPT")
	if script == "" {
		t.Skip("IPSYNC_RABBITMQ_SCRIPT is not set; point it at scripts/rabbitmq-up.sh to let this test restart the broker")
	}
	restart := func(t *testing.T) {
		cmd := exec.Command(script, "restart")
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s restart: %v", script, err)
		}
	}
	eachTarget(t, func(t *testing.T, srv *target) { resumeScenario(t, srv, base, amqp, restart, true) })
}

func notifiedBroker(t *testing.T) string {
	t.Helper()
	amqp := os.Getenv("IPSYNC_RABBITMQ_URL")
	if amqp == "" || os.Getenv("IPSYNC_NEUTRON_NOTIFIES") == "" {
		t.Skip("set IPSYNC_RABBITMQ_URL and IPSYNC_NEUTRON_NOTIFIES=1 (a Neutron started with NEUTRON_NOTIFY_URL) to run")
	}
	return amqp
}

// resumeScenario runs an agent, stops it, changes Neutron (a network
// made, another deleted) and, with meanwhile, the world, and starts it
// again: the target is followed on from, Neutron read whole as
// neutronWhole says, and both changes are written.
func resumeScenario(t *testing.T, srv *target, base, amqp string, meanwhile func(*testing.T), neutronWhole bool) {
	stateDir := t.TempDir()
	rabbit := ""
	if amqp != "" {
		rabbit = fmt.Sprintf("  coalesce: 100ms\n  rabbitmq: {url: %q, queue: %q}\n", amqp, fmt.Sprintf("ipsync-resume-%d", time.Now().UnixNano()))
	}
	cfg := targetSiteConfig(t, srv, base, fmt.Sprintf(`policy: {max_delete_min: 50}
agent:
  interval: 24h
  state_dir: %q
%s`, stateDir, rabbit))
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
	if amqp != "" {
		// The consumer's first session begins with a Resync (nothing
		// vouches for the queue before), whose sync reads Neutron whole:
		// stopped before it is done, the agent could not keep Neutron.
		a.waitFor(t, "sync what the consumer's start asked", time.Minute, func() bool { return a.hasRun(func(r agent.RunRecord) bool { return r.Result == "ok" && r.Events > 0 }) })
	}
	a.stop(t, 30*time.Second)
	if _, err := os.Stat(filepath.Join(stateDir, "a11.state.json")); err != nil {
		t.Fatalf("no state saved: %v", err)
	}

	second := routedNetwork(t, base, name+"-b", 184, 185, "172.31.24.0/24", "172.31.25.0/24")
	t.Cleanup(func() { _ = deleteNetwork(base, second) })
	if err := deleteNetwork(base, first); err != nil {
		t.Fatal(err)
	}
	if meanwhile != nil {
		meanwhile(t)
	}
	b := startAgent(t, cfg)
	two := b.firstRun(t)
	if !strings.HasPrefix(two.status.Start, "resumed from the state saved at") {
		t.Errorf("second start: %q, want resumed", two.status.Start)
	}
	if !one.run.ReadWhole["target"] || two.run.ReadWhole["target"] || !one.run.ReadWhole["neutron"] || two.run.ReadWhole["neutron"] != neutronWhole {
		t.Errorf("read whole: %v by the first sync, %v by the first after resuming; want the target whole only by the first, Neutron by the first and %v after resuming; log after resuming:\n%s",
			one.run.ReadWhole, two.run.ReadWhole, neutronWhole, b.logs.String())
	}
	b.waitFor(t, "write the network made, and delete the one deleted, while it was stopped", time.Minute, func() bool {
		vlans := vlansOf(t, srv, "neutron:a11")
		return slices.Contains(vlans, "184") && slices.Contains(vlans, "185") && !slices.Contains(vlans, "182") && !slices.Contains(vlans, "183")
	})
	t.Logf("first sync: a sweep, %d target and %d Neutron requests; after resuming %d and %d",
		one.run.Reads["target"], one.run.Reads["neutron"], two.run.Reads["target"], two.run.Reads["neutron"])
	b.stop(t, 30*time.Second)
}

// hasRun says whether a run the agent recorded matches.
func (a *runningAgent) hasRun(match func(agent.RunRecord) bool) bool {
	var st agent.Status
	code, body := httpGet("http://" + a.listen + "/status.json")
	if code != http.StatusOK || json.Unmarshal([]byte(body), &st) != nil {
		return false
	}
	return slices.ContainsFunc(st.Runs, match)
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
