package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/ipsync/ipsync/internal/agent"
	"github.com/ipsync/ipsync/internal/nautobot/nbtest"
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
	srv := nbtest.Emulator(t)
	addr := freeAddr(t)
	queue := fmt.Sprintf("ipsync-restart-%d", time.Now().UnixNano())
	t.Cleanup(func() { deleteQueue(amqpURL, queue) })
	cfg := siteConfig(t, srv, base, fmt.Sprintf("policy: {max_delete_min: 50}\nagent:\n  listen: %s\n  interval: 24h\n  coalesce: 100ms\n  rabbitmq: {url: %q, queue: %q}\n",
		addr, amqpURL, queue))
	mustRun(t, "bootstrap", "--config", cfg, "--commit")
	mustRun(t, "apply", "--config", cfg, "--commit")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"agent", "--config", cfg, "--site", "a11"}, func(string) string { return "" }, &logs, &logs)
	}()
	rabbit := func() (agent.Condition, int) {
		_, body := httpGet("http://" + addr + "/status.json")
		var st agent.Status
		_ = json.Unmarshal([]byte(body), &st)
		for _, c := range st.Conditions {
			if c.Name == "rabbitmq" {
				return c, len(st.Runs)
			}
		}
		return agent.Condition{}, len(st.Runs)
	}
	waitFor := func(what string, limit time.Duration, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(limit); !cond(); time.Sleep(100 * time.Millisecond) {
			select {
			case code := <-done:
				t.Fatalf("the agent exited (%d) while waiting until %s; log:\n%s", code, what, logs.String())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("not %s within %s; log:\n%s", what, limit, logs.String())
			}
		}
	}
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
	cancel()
	if code := <-done; code != ExitOK {
		t.Errorf("agent exit %d; log:\n%s", code, logs.String())
	}
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
