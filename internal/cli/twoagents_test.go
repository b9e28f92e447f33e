package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/agent"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
)

// slowProxy stands between one agent and Nautobot. While delay is set it
// holds every request that long before passing it on, like a Nautobot
// that stopped answering in time; a request whose client gives up while
// held is never passed on. It records when each write (not the lease's
// own tag requests) was passed on and answered.
type slowProxy struct {
	srv   *httptest.Server
	delay atomic.Int64 // nanoseconds

	mu     sync.Mutex
	writes []interval
}

type interval struct{ start, end time.Time }

func newSlowProxy(t *testing.T, upstream *servertest.Server) *slowProxy {
	t.Helper()
	u, err := url.Parse(upstream.URL())
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.Transport = upstream.Client().Transport
	rp.ErrorLog = log.New(io.Discard, "", 0) // requests the agent gave up on
	p := &slowProxy{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d := time.Duration(p.delay.Load()); d > 0 {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return // the agent gave up: this request never reaches Nautobot
			}
		}
		write := r.Method != http.MethodGet && !strings.HasPrefix(r.URL.Path, "/api/extras/tags/")
		start := time.Now()
		rp.ServeHTTP(w, r)
		if write {
			p.mu.Lock()
			p.writes = append(p.writes, interval{start, time.Now()})
			p.mu.Unlock()
		}
	}))
	t.Cleanup(func() {
		p.srv.CloseClientConnections()
		p.srv.Close()
	})
	return p
}

func (p *slowProxy) recorded() []interval {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.writes)
}

// runs are the agent's syncs as its status page lists them, oldest first;
// none before it serves the page.
func (a *runningAgent) runs(t *testing.T) []agent.RunRecord {
	t.Helper()
	code, body := httpGet("http://" + a.listen + "/status.json")
	var st struct {
		Runs []agent.RunRecord `json:"runs"`
	}
	if code == 0 {
		return nil
	}
	if code != http.StatusOK || json.Unmarshal([]byte(body), &st) != nil {
		t.Fatalf("status.json: %d %s", code, body)
	}
	slices.Reverse(st.Runs) // the page lists the newest first
	return st.Runs
}

func (a *runningAgent) holdsLease() bool {
	code, body := httpGet("http://" + a.listen + "/status.json")
	if code != http.StatusOK {
		return false
	}
	var st struct {
		LeaseHeld bool `json:"lease_held"`
	}
	return json.Unmarshal([]byte(body), &st) == nil && st.LeaseHeld
}

// TestTwoAgentsWithSlowNautobot runs two agents of one site, each on a
// notification queue of its own, with a lease of 9s renewed every 3s (a
// real Nautobot takes a second to answer /api/status/), and makes the
// holder's Nautobot answer only after 20s. The holder must stop writing
// before the lease can expire, the standby take over on the views it
// kept, and every Neutron change be synced from its notification (the
// periodic sync is a day away): never two writers, no notification lost
// or left waiting.
func TestTwoAgentsWithSlowNautobot(t *testing.T) {
	base := neutronURL(t)
	amqp := os.Getenv("IPSYNC_RABBITMQ_URL")
	if amqp == "" || os.Getenv("IPSYNC_NEUTRON_NOTIFIES") == "" {
		t.Skip("set IPSYNC_RABBITMQ_URL and IPSYNC_NEUTRON_NOTIFIES=1 (a Neutron started with NEUTRON_NOTIFY_URL) to run")
	}
	eachNautobot(t, func(t *testing.T, srv *servertest.Server) { twoAgentsSlow(t, srv, base, amqp) })
}

func twoAgentsSlow(t *testing.T, srv *servertest.Server, base, amqp string) {
	queue := fmt.Sprintf("ipsync-e2e-two-%d", time.Now().UnixNano())
	cfg := siteConfig(t, srv, base, fmt.Sprintf(`policy: {max_delete_min: 50}
agent:
  interval: 24h
  coalesce: 100ms
  lease_ttl: 9s
  lease_renew: 3s
  rabbitmq: {url: %q, queue: %q}
`, amqp, queue))
	mustRun(t, "bootstrap", "--config", cfg, "--commit")
	mustRun(t, "apply", "--config", cfg, "--commit")
	defer deleteQueue(amqp, queue)

	proxies := map[string]*slowProxy{"a": newSlowProxy(t, srv), "b": newSlowProxy(t, srv)}
	agents := map[string]*runningAgent{}
	for _, name := range []string{"a", "b"} {
		agents[name] = startAgent(t, viaProxy(t, cfg, srv.URL(), proxies[name].srv.URL))
		if name == "a" {
			waitUntil(t, "agent a to take the lease", agents, func() bool { return agents["a"].holdsLease() })
		}
	}
	a, b := agents["a"], agents["b"]
	waitUntil(t, "agent b to start as a standby", agents, func() bool {
		code, _ := httpGet("http://" + b.listen + "/healthz")
		return code == http.StatusOK && !b.holdsLease()
	})

	suffix := time.Now().UnixNano() % 100000
	var networks []string
	t.Cleanup(func() {
		for _, id := range networks {
			if err := deleteNetwork(base, id); err != nil {
				t.Error(err)
			}
		}
	})
	create := func(i, vid int) {
		t.Helper()
		id := routedNetwork(t, base, fmt.Sprintf("two-%d-%d", suffix, i), vid, vid+1,
			fmt.Sprintf("172.31.%d.0/24", 40+2*i), fmt.Sprintf("172.31.%d.0/24", 41+2*i))
		networks = append(networks, id)
		waitUntil(t, fmt.Sprintf("network %d's VLANs %d and %d in Nautobot", i, vid, vid+1), agents, func() bool {
			got := vlansOf(t, srv, "neutron:a11")
			return slices.Contains(got, fmt.Sprint(vid)) && slices.Contains(got, fmt.Sprint(vid+1))
		})
	}
	create(0, 182)

	// a's Nautobot slows down beyond the lease's TTL; a change arrives now.
	proxies["a"].delay.Store(int64(20 * time.Second))
	create(1, 184)
	waitUntil(t, "agent b to take the lease over", agents, b.holdsLease)

	// b kept its views current as a standby, from a notification queue of
	// its own: taking over, it read neither side whole.
	var takeover *agent.RunRecord
	var runs []agent.RunRecord
	waitUntil(t, "agent b's first sync as the holder", agents, func() bool {
		runs = b.runs(t)
		for i, r := range runs {
			if !strings.HasPrefix(r.Trigger, "standby") {
				takeover = &runs[i]
				return true
			}
		}
		return false
	})
	switch {
	case takeover == nil:
		t.Errorf("agent b's runs after the takeover %+v: none as the holder", runs)
	case len(runs) == 0 || !strings.HasPrefix(runs[0].Trigger, "standby"):
		t.Errorf("agent b's first run %+v, want a standby's", runs[0])
	case takeover.ReadWhole["neutron"] || takeover.ReadWhole["target"]:
		t.Log(b.logs.String())
		t.Errorf("agent b's first sync as the holder %+v read whole %v; want it to plan on the views its standby syncs kept", takeover, takeover.ReadWhole)
	}

	// a's Nautobot recovers; a must find the lease taken and stay standby.
	proxies["a"].delay.Store(0)
	create(2, 186)
	if a.holdsLease() {
		t.Errorf("agent a holds the lease again while b holds it")
	}

	a.stop(t, time.Minute)
	b.stop(t, time.Minute)
	wa, wb := proxies["a"].recorded(), proxies["b"].recorded()
	if len(wa) == 0 || len(wb) == 0 {
		t.Fatalf("writes passed on: a %d, b %d; want both agents to have written", len(wa), len(wb))
	}
	for _, x := range wa {
		for _, y := range wb {
			if x.start.Before(y.end) && y.start.Before(x.end) {
				t.Errorf("two writers: a wrote %s-%s while b wrote %s-%s", x.start.Format(time.StampMilli),
					x.end.Format(time.StampMilli), y.start.Format(time.StampMilli), y.end.Format(time.StampMilli))
			}
		}
	}
}

// viaProxy writes a copy of the config at cfg whose Nautobot is proxy.
func viaProxy(t *testing.T, cfg, nautobotURL, proxy string) string {
	t.Helper()
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Replace(cfg, ".yaml", fmt.Sprintf("-%d.yaml", time.Now().UnixNano()), 1)
	if err := os.WriteFile(out, []byte(strings.Replace(string(b), nautobotURL, proxy, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

// waitUntil polls cond, failing with both agents' logs after a minute.
func waitUntil(t *testing.T, what string, agents map[string]*runningAgent, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			var logs strings.Builder
			for name, a := range agents {
				fmt.Fprintf(&logs, "--- agent %s:\n%s\n", name, a.logs.String())
			}
			t.Fatalf("gave up waiting for %s\n%s", what, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
