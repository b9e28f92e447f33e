package cli

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
)

// BenchmarkEventLatency measures how long a change in the real Neutron takes
// to reach Nautobot through the agent: a port is renamed (PUT), Neutron
// publishes port.update.end to RabbitMQ, the agent re-reads that network and
// writes the IP's new description to the emulator. It renames ports one
// after another IPSYNC_AGENT_BENCH_EVENTS times (default 1000) and reports
// p50 and p99. Needs the same servers as TestAgentFollowsNotifications and
// IPSYNC_AGENT_BENCH=1.
func BenchmarkEventLatency(b *testing.B) {
	if os.Getenv("IPSYNC_AGENT_BENCH") == "" {
		b.Skip("set IPSYNC_AGENT_BENCH=1 with IPSYNC_NEUTRON_URL, IPSYNC_RABBITMQ_URL and IPSYNC_NEUTRON_NOTIFIES=1")
	}
	events := 1000
	if n, err := strconv.Atoi(os.Getenv("IPSYNC_AGENT_BENCH_EVENTS")); err == nil && n > 0 {
		events = n
	}
	for b.Loop() {
		lat := agentLatency(b, events)
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Milliseconds()), "p99-ms")
		b.ReportMetric(float64(events), "events")
	}
}

func agentLatency(b *testing.B, events int) []time.Duration {
	base := os.Getenv("IPSYNC_NEUTRON_URL")
	amqp := os.Getenv("IPSYNC_RABBITMQ_URL")
	srv := servertest.Emulator(b)
	cfg := siteConfig(b, srv, base, fmt.Sprintf("agent:\n  listen: 127.0.0.1:0\n  interval: 24h\n  coalesce: 50ms\n  rabbitmq: {url: %q, queue: %q}\n",
		amqp, fmt.Sprintf("ipsync-bench-%d", time.Now().UnixNano())))
	mustRun(b, "bootstrap", "--config", cfg, "--commit")
	mustRun(b, "apply", "--config", cfg, "--commit")
	id := routedNetwork(b, base, "bench-latency", 190, 191, "172.29.12.0/24", "172.29.13.0/24")
	var ports struct {
		Ports []struct {
			ID       string `json:"id"`
			FixedIPs []struct {
				IP string `json:"ip_address"`
			} `json:"fixed_ips"`
		} `json:"ports"`
	}
	neutronCall(b, "GET", base+"/v2.0/ports?network_id="+id, nil, &ports)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go Main(ctx, []string{"agent", "--config", cfg, "--site", "a11"}, func(string) string { return "" }, discard{}, discard{})
	descOf := func(ip string) string {
		for _, o := range srv.Objects(b, "ipam.ipaddress") {
			if a, _ := o["address"].(string); a == ip+"/24" {
				d, _ := o["description"].(string)
				return d
			}
		}
		return ""
	}
	wait := func(ip, want string, limit time.Duration) bool {
		for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if descOf(ip) == want {
				return true
			}
		}
		return false
	}
	p := ports.Ports[0]
	if !wait(p.FixedIPs[0].IP, "bench-latency-port-a11-12-network", time.Minute) && !wait(p.FixedIPs[0].IP, "bench-latency-port-a11-13-network", time.Second) {
		b.Fatalf("agent did not sync the network")
	}
	lat := make([]time.Duration, 0, events)
	for i := range events {
		p := ports.Ports[i%len(ports.Ports)]
		name := fmt.Sprintf("bench-%d", i)
		neutronCall(b, "PUT", base+"/v2.0/ports/"+p.ID, map[string]any{"port": map[string]any{"name": name}}, nil)
		start := time.Now()
		if !wait(p.FixedIPs[0].IP, name, 30*time.Second) {
			b.Fatalf("event %d: the rename did not reach Nautobot", i)
		}
		lat = append(lat, time.Since(start))
	}
	return lat
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
