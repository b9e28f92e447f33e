package events

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// verdictOf runs a consumer resuming from m until it gives its verdict,
// and returns it with the events it passed on before.
func verdictOf(t *testing.T, cfg Config, m Marker) (Verdict, []Event) {
	t.Helper()
	got := make(chan Verdict, 1)
	r := startConsumer(t, cfg, WithResume(m, func(v Verdict) { got <- v }))
	defer r.stop()
	var evs []Event
	deadline := time.After(waitLimit)
	for {
		select {
		case v := <-got:
			// A queue not kept is followed by the Resync every other
			// start begins with; a kept one by none.
			if !v.Kept {
				r.nextResync()
			}
			return v, evs
		case ev := <-r.out:
			if ev.Type != Resync {
				evs = append(evs, ev)
				continue
			}
			select {
			case v := <-got:
				if v.Kept {
					t.Errorf("Resync after a verdict that the queue was kept")
				}
				return v, evs
			default:
				t.Fatal("Resync before the verdict")
			}
		case <-deadline:
			t.Fatal("no verdict")
		}
	}
}

// consumedAndStopped runs a consumer of cfg until it consumes, and stops it.
func consumedAndStopped(t *testing.T, cfg Config) *running {
	t.Helper()
	r := startConsumer(t, cfg)
	r.waitState(0, connected)
	r.stop()
	return r
}

// stopCleanly is consumedAndStopped, then the marker left as the agent leaves it
// when it stops.
func stopCleanly(t *testing.T, cfg Config) Marker {
	t.Helper()
	m, err := consumedAndStopped(t, cfg).c.Mark(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestIntegrationResumeChecksTheQueue: an agent that stopped cleanly
// follows on from its saved Neutron only if its queue holds everything
// since; each way the queue can lose messages while the agent is down
// makes it read Neutron whole.
func TestIntegrationResumeChecksTheQueue(t *testing.T) {
	url := brokerURL(t)
	cases := []struct {
		name string
		// meanwhile happens between the stop and the start; it returns
		// the marker the start checks against.
		meanwhile func(t *testing.T, cfg Config, p *publisher, ids []string) Marker
		kept      bool
		reason    string
	}{
		{name: "kept", kept: true, meanwhile: func(t *testing.T, cfg Config, p *publisher, ids []string) Marker {
			m := stopCleanly(t, cfg)
			for _, id := range ids {
				p.publish("network.update.end", map[string]any{"network": map[string]any{"id": id}})
			}
			return m
		}},
		{name: "killed, no marker", reason: "witness", meanwhile: func(t *testing.T, cfg Config, p *publisher, ids []string) Marker {
			consumedAndStopped(t, cfg)
			p.publish("network.update.end", map[string]any{"network": map[string]any{"id": ids[0]}})
			return Marker{Nonce: "from-an-older-state", Ahead: 0}
		}},
		{name: "another consumer took from the queue", reason: "witness", meanwhile: func(t *testing.T, cfg Config, p *publisher, ids []string) Marker {
			m := stopCleanly(t, cfg)
			p.publish("network.update.end", map[string]any{"network": map[string]any{"id": ids[0]}})
			other := startConsumer(t, cfg)
			other.nextResync()
			other.stop()
			p.publish("network.update.end", map[string]any{"network": map[string]any{"id": ids[1]}})
			return m
		}},
		{name: "queue deleted and made anew", reason: "marker", meanwhile: func(t *testing.T, cfg Config, p *publisher, ids []string) Marker {
			m := stopCleanly(t, cfg)
			deleteQueue(t, url, cfg.Queue)
			return m
		}},
		{name: "messages ahead of the marker dropped", reason: "dropped", meanwhile: func(t *testing.T, cfg Config, p *publisher, ids []string) Marker {
			r := consumedAndStopped(t, cfg)
			// Two notifications wait when the agent stops (it was
			// busy); one more after the marker overflows the queue's
			// x-max-length of 3, which drops the oldest.
			p.publish("network.update.end", map[string]any{"network": map[string]any{"id": ids[0]}})
			p.publish("network.update.end", map[string]any{"network": map[string]any{"id": ids[1]}})
			m, err := r.c.Mark(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			p.publish("network.update.end", map[string]any{"network": map[string]any{"id": ids[2]}})
			return m
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, url, "resume")
			// Only this test's notifications reach its queue.
			cfg.Topic = "notifications-" + cfg.Queue + ".info"
			if tc.name == "messages ahead of the marker dropped" {
				cfg.MaxLength = 3
			}
			p := &publisher{t: t, url: url, topic: cfg.Topic}
			ids, _ := newIDs("net1", "net2", "net3")
			m := tc.meanwhile(t, cfg, p, ids)
			v, evs := verdictOf(t, cfg, m)
			if v.Kept != tc.kept || !strings.Contains(v.Reason, tc.reason) {
				t.Fatalf("verdict %+v, want kept %v (reason with %q)", v, tc.kept, tc.reason)
			}
			if !tc.kept {
				return
			}
			slices.Sort(v.Networks)
			if !slices.Equal(v.Networks, ids) {
				t.Errorf("verdict names networks %v, want those published while stopped %v", v.Networks, ids)
			}
			if len(evs) != len(ids) {
				t.Errorf("%d events before the verdict, want %d: %+v", len(evs), len(ids), evs)
			}
		})
	}
}

// TestIntegrationResumeNotKeptAcrossBrokerRestart: a broker restart while
// the agent is down drops the queue's binding to Neutron's transient
// exchange, and with it what Neutron sent until the agent bound it again.
func TestIntegrationResumeNotKeptAcrossBrokerRestart(t *testing.T) {
	url := brokerURL(t)
	script := os.Getenv("IPSYNC_RABBITMQ_SCRIPT")
	if script == "" {
		t.Skip("IPSYNC_RABBITMQ_SCRIPT is not set; point it at scripts/rabbitmq-up.sh to let this test restart the broker")
	}
	cfg := testConfig(t, url, "resume-restart")
	m := stopCleanly(t, cfg)
	cmd := exec.Command(script, "restart")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s restart: %v", script, err)
	}
	if v, _ := verdictOf(t, cfg, m); v.Kept || !strings.Contains(v.Reason, "witness") {
		t.Errorf("verdict after a broker restart %+v, want not kept: the witness is gone", v)
	}
}
