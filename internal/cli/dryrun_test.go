package cli

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestAgentDryRunWritesNothing runs `ipsync agent --dry-run` against each
// real target with a change in Neutron to write: it plans and reports the
// drift, sends the target nothing but reads (no lease tag, no state), and
// an agent that writes, started beside it, takes the lease and writes.
func TestAgentDryRunWritesNothing(t *testing.T) {
	base := neutronURL(t)
	eachTarget(t, func(t *testing.T, srv *target) { agentDryRun(t, srv, base) })
}

func agentDryRun(t *testing.T, srv *target, base string) {
	extra := `policy: {max_delete_min: 50}
agent:
  interval: 2s
  lease_ttl: 9s
  lease_renew: 3s
  state_dir: ` + t.TempDir() + "\n"
	if amqp := os.Getenv("IPSYNC_RABBITMQ_URL"); amqp != "" {
		extra += fmt.Sprintf("  rabbitmq: {url: %q, queue: %q}\n", amqp, fmt.Sprintf("ipsync-dry-%d", time.Now().UnixNano()))
	}
	cfg := targetSiteConfig(t, srv, base, extra)
	mustRun(t, "bootstrap", "--config", cfg, "--commit")
	mustRun(t, "apply", "--config", cfg, "--commit")
	id := routedNetwork(t, base, fmt.Sprintf("dry-%d", time.Now().UnixNano()%100000), 188, 189, "172.31.60.0/24", "172.31.61.0/24")
	t.Cleanup(func() {
		if err := deleteNetwork(base, id); err != nil {
			t.Error(err)
		}
	})

	srv.ResetCounts()
	dry := startAgent(t, cfg, "--dry-run")
	// Two syncs: the start's and a periodic one, each planning the
	// network's objects and writing none of them.
	dry.waitFor(t, "plan twice", time.Minute, func() bool {
		ok := 0
		for _, r := range dry.runs(t) {
			if r.Result == "ok" && r.Trigger != "" && !strings.HasPrefix(r.Trigger, "standby") {
				ok++
			}
		}
		return ok >= 2
	})
	code, body := httpGet("http://" + dry.listen + "/status.json")
	if code != http.StatusOK || !strings.Contains(body, "172.31.60.0/24") {
		t.Errorf("the dry run's drift does not name the network's prefix 172.31.60.0/24: %d %s", code, body)
	}
	dry.stop(t, 30*time.Second)
	// GET, and OPTIONS (NetBox's field choices), read; anything else writes.
	var writes []string
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if n := srv.Requests(m, ""); n > 0 {
			writes = append(writes, fmt.Sprintf("%d %s", n, m))
		}
	}
	if len(writes) > 0 {
		t.Errorf("the dry run wrote: %s", strings.Join(writes, ", "))
	}
	if got := vlansOf(t, srv, "neutron:a11"); slices.Contains(got, "188") {
		t.Errorf("VLAN 188 written by a dry run")
	}

	// Beside a dry run, an agent that writes is not kept waiting.
	dry = startAgent(t, cfg, "--dry-run")
	writer := startAgent(t, cfg)
	agents := map[string]*runningAgent{"dry": dry, "writer": writer}
	waitUntil(t, "the writing agent to write VLANs 188 and 189", agents, func() bool {
		got := vlansOf(t, srv, "neutron:a11")
		return slices.Contains(got, "188") && slices.Contains(got, "189")
	})
	if !writer.holdsLease() || dry.holdsLease() {
		t.Errorf("lease held by the writer %v, by the dry run %v; want the writer alone", writer.holdsLease(), dry.holdsLease())
	}
}
