package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/ipsync/ipsync/internal/agent"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/syncbuf"
)

// TestAgentSurvivesBrokerRestart runs `ipsync agent` while RabbitMQ
// restarts under it: the agent keeps running, reports the broker down and
// back (status page condition), and follows notifications again after.
// It restarts the broker with IPSYNC_RABBITMQ_SCRIPT, so CI runs it alone.
func TestAgentSurvivesBrokerRestart(t *testing.T) {
	base := neutronURL(t)
	amqpURL, script := os.Getenv("IPSYNC_RABBITMQ_URL"), os.Getenv("IPSYNC_RABBITMQ_SCRIPT")
	if amqpURL == "" || script == "" {
		t.Skip("set IPSYNC_RABBITMQ_URL and IPSYNC_RABBITMQ_SCRIPT (scripts/rabbitmq-up.sh, which it calls with restart) to run")
	}
	// A broker restart is a fault: the emulator alone.
	ba := startBrokerAgent(t, base, amqpURL, "ipsync-restart")
	srv, rabbit, waitFor := ba.srv, ba.rabbit, ba.waitFor
	waitFor("consuming and synced once", time.Minute, func() bool { c, runs := rabbit(); return c.OK && runs > 0 })

	restarted := time.Now()
	cmd := exec.Command(script, "restart")
	cmd.Stderr = os.Stderr
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("%s restart: %v (%s)", script, err, out)
	}
	// The condition went down and came back: its Since moved past the restart.
	waitFor("consuming again after the restart", 2*time.Minute, func() bool { c, _ := rabbit(); return c.OK && c.Since.After(restarted) })

	// A notification after the restart still reaches Nautobot. Neutron
	// publishes to its own broker, which need not be this one, so the
	// test publishes what Neutron would.
	id := routedNetwork(t, base, fmt.Sprintf("restart-%d", time.Now().UnixNano()%100000), 182, 183, "172.25.12.0/24", "172.25.13.0/24")
	publishNetworkEvent(t, amqpURL, id)
	waitFor("following notifications after the restart", time.Minute, func() bool {
		got := vlansOf(t, srv, "neutron:a11")
		return slices.Contains(got, "182") && slices.Contains(got, "183")
	})
	ba.stop()
}

// TestAgentCatchesUpAfterBrokerRestart: a network made while RabbitMQ is
// down reaches Nautobot soon after the broker is back, though Neutron
// dropped its notifications (it logs the refused connection and goes on)
// and the agent's periodic sync is a day away: once consuming again, the
// agent reads Neutron whole. It stops and starts the broker with
// IPSYNC_RABBITMQ_SCRIPT, so CI runs it alone.
func TestAgentCatchesUpAfterBrokerRestart(t *testing.T) {
	base := neutronURL(t)
	amqpURL, script := os.Getenv("IPSYNC_RABBITMQ_URL"), os.Getenv("IPSYNC_RABBITMQ_SCRIPT")
	if amqpURL == "" || script == "" || os.Getenv("IPSYNC_NEUTRON_NOTIFIES") != "1" {
		t.Skip("set IPSYNC_RABBITMQ_URL, IPSYNC_RABBITMQ_SCRIPT (scripts/rabbitmq-up.sh) and IPSYNC_NEUTRON_NOTIFIES=1 (IPSYNC_NEUTRON_URL publishes to that broker) to run")
	}
	ba := startBrokerAgent(t, base, amqpURL, "ipsync-catchup")
	srv, rabbit, waitFor := ba.srv, ba.rabbit, ba.waitFor
	// Started and synced: the resync of the consumer's first start, which
	// may follow the first sweep, done too.
	waitFor("consuming and synced twice", 2*time.Minute, func() bool { c, runs := rabbit(); return c.OK && runs > 1 })

	stopped := time.Now()
	t.Cleanup(func() { _ = exec.Command(script, "start").Run() }) // never leave the broker down
	if out, err := exec.Command(script, "stop").CombinedOutput(); err != nil {
		t.Fatalf("%s stop: %v (%s)", script, err, out)
	}
	waitFor("told the broker is down", time.Minute, func() bool { c, _ := rabbit(); return !c.OK && c.Since.After(stopped) })
	// Neutron drops the notifications of a write while the broker is down
	// or, its connection to the broker broken, holds the write until the
	// broker is back (it sends network.create.start before it commits) and
	// publishes network.create.end then, before or after the agent has
	// bound its queue again.
	name := fmt.Sprintf("catchup-%d", time.Now().UnixNano()%100000)
	created := make(chan error, 1)
	go func() { created <- postRoutedNetwork(base, name, 184, 185) }()
	t.Cleanup(func() {
		if id := neutronNetworkID(base, name); id != "" {
			_ = deleteNetwork(base, id)
		}
	})
	time.Sleep(3 * time.Second) // the request reaches Neutron
	if out, err := exec.Command(script, "start").CombinedOutput(); err != nil {
		t.Fatalf("%s start: %v (%s)", script, err, out)
	}
	started := time.Now()
	select {
	case err := <-created:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("Neutron did not answer the network's creation within 2m of the broker's start")
	}
	t.Logf("Neutron created the network %v after the broker started", time.Since(started).Round(time.Millisecond))
	waitFor("consuming again", 2*time.Minute, func() bool { c, _ := rabbit(); return c.OK && c.Since.After(stopped) })
	waitFor("the network made while the broker was down in Nautobot", time.Minute, func() bool {
		got := vlansOf(t, srv, "neutron:a11")
		return slices.Contains(got, "184") && slices.Contains(got, "185")
	})
	// Whether or not its notification reached the queue, the agent read
	// Neutron whole once it consumed again.
	if !readNeutronWholeAfter(t, ba.logs.String(), started) {
		t.Errorf("no sync read Neutron whole after the broker came back; log:\n%s", ba.logs.String())
	}
	t.Logf("in Nautobot %v after the broker started", time.Since(started).Round(time.Millisecond))
	ba.stop()
}

// brokerAgent is `ipsync agent` of site a11 running against the emulator,
// its Neutron at base and RabbitMQ at amqpURL, for the broker-restart
// tests: a periodic sync a day away, so that only notifications move it.
type brokerAgent struct {
	t      *testing.T
	srv    *servertest.Server
	addr   string
	logs   *syncbuf.Buffer
	done   chan int
	cancel context.CancelFunc
}

func startBrokerAgent(t *testing.T, base, amqpURL, queuePrefix string) *brokerAgent {
	t.Helper()
	srv := servertest.Emulator(t)
	addr := freeAddr(t)
	queue := fmt.Sprintf("%s-%d", queuePrefix, time.Now().UnixNano())
	t.Cleanup(func() { deleteQueue(amqpURL, queue) })
	cfg := siteConfig(t, srv, base, fmt.Sprintf("policy: {max_delete_min: 50}\nagent:\n  listen: %s\n  interval: 24h\n  coalesce: 100ms\n  rabbitmq: {url: %q, queue: %q}\n",
		addr, amqpURL, queue))
	mustRun(t, "bootstrap", "--config", cfg, "--commit")
	mustRun(t, "apply", "--config", cfg, "--commit")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	a := &brokerAgent{t: t, srv: srv, addr: addr, logs: &syncbuf.Buffer{}, done: make(chan int, 1), cancel: cancel}
	go func() {
		a.done <- Main(ctx, []string{"agent", "--config", cfg, "--site", "a11"}, func(string) string { return "" }, a.logs, a.logs)
	}()
	return a
}

// rabbit is the agent's rabbitmq condition and how many runs it shows.
func (a *brokerAgent) rabbit() (agent.Condition, int) {
	_, body := httpGet("http://" + a.addr + "/status.json")
	var st agent.Status
	_ = json.Unmarshal([]byte(body), &st)
	for _, c := range st.Conditions {
		if c.Name == "rabbitmq" {
			return c, len(st.Runs)
		}
	}
	return agent.Condition{}, len(st.Runs)
}

// waitFor polls cond until it holds, failing if the agent exits first or
// limit passes.
func (a *brokerAgent) waitFor(what string, limit time.Duration, cond func() bool) {
	a.t.Helper()
	for deadline := time.Now().Add(limit); !cond(); time.Sleep(100 * time.Millisecond) {
		select {
		case code := <-a.done:
			a.t.Fatalf("the agent exited (%d) while waiting until %s; log:\n%s", code, what, a.logs.String())
		default:
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("not %s within %s; log:\n%s", what, limit, a.logs.String())
		}
	}
}

// stop stops the agent, which must exit cleanly.
func (a *brokerAgent) stop() {
	a.t.Helper()
	a.cancel()
	if code := <-a.done; code != ExitOK {
		a.t.Errorf("agent exit %d; log:\n%s", code, a.logs.String())
	}
}

// postRoutedNetwork makes a network with a VLAN segment on each of site
// a11's leaf pairs, without a test's helpers: it runs beside the test,
// which Neutron may hold up.
func postRoutedNetwork(base, name string, vid12, vid13 int) error {
	body, _ := json.Marshal(map[string]any{"network": map[string]any{"name": name, "segments": []map[string]any{
		{"provider:network_type": "vlan", "provider:physical_network": "a11-12-network", "provider:segmentation_id": vid12},
		{"provider:network_type": "vlan", "provider:physical_network": "a11-13-network", "provider:segmentation_id": vid13},
	}}})
	resp, err := http.Post(base+"/v2.0/networks", "application/json", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("create network %s: %w", name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("create network %s: %s", name, resp.Status)
	}
	return nil
}

// neutronNetworkID is the id of the network named name, "" if none.
func neutronNetworkID(base, name string) string {
	var out struct {
		Networks []struct {
			ID string `json:"id"`
		} `json:"networks"`
	}
	resp, err := http.Get(base + "/v2.0/networks?name=" + url.QueryEscape(name))
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	if json.NewDecoder(resp.Body).Decode(&out) != nil || len(out.Networks) == 0 {
		return ""
	}
	return out.Networks[0].ID
}

// readNeutronWholeAfter says whether the agent's JSON log has a sync done
// after t that read Neutron whole.
func readNeutronWholeAfter(tb testing.TB, log string, t time.Time) bool {
	tb.Helper()
	for _, line := range strings.Split(log, "\n") {
		var rec struct {
			Time      time.Time       `json:"time"`
			Msg       string          `json:"msg"`
			ReadWhole map[string]bool `json:"read_whole"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "sync done" && rec.Time.After(t) && rec.ReadWhole["neutron"] {
			return true
		}
	}
	return false
}

// publishNetworkEvent sends an oslo notification like Neutron's for a
// network's creation to the exchange the agent consumes.
func publishNetworkEvent(t *testing.T, url, networkID string) {
	t.Helper()
	inner, _ := json.Marshal(map[string]any{
		"message_id": fmt.Sprintf("%d", time.Now().UnixNano()), "publisher_id": "network.ipsync-test", "event_type": "network.create.end",
		"priority": "INFO", "payload": map[string]any{"network": map[string]any{"id": networkID}},
		"timestamp": time.Now().UTC().Format("2006-01-02 15:04:05.000000"),
	})
	body, _ := json.Marshal(map[string]string{"oslo.version": "2.0", "oslo.message": string(inner)})
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatalf("publish: %v", err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatalf("publish: %v", err)
	}
	if err := ch.Publish("neutron", "notifications.info", false, false, amqp.Publishing{ContentType: "application/json", Body: body}); err != nil {
		t.Fatalf("publish: %v", err)
	}
}
