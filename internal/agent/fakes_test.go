package agent_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/ipsync/ipsync/internal/agent"
	"github.com/ipsync/ipsync/internal/clock/clocktest"
)

// hangGuard only stops a broken test from hanging; no test asserts on how
// long anything takes.
const hangGuard = 10 * time.Second

// fakeSyncer hands every Sync to the test, which answers it; a sync whose
// context is cancelled returns the context's error, as a real one would.
type fakeSyncer struct{ calls chan *call }

type call struct {
	ctx   context.Context
	trig  *agent.Trigger
	reply chan reply
}

type reply struct {
	out agent.Outcome
	err error
}

func (c *call) answer(out agent.Outcome, err error) { c.reply <- reply{out, err} }

func (s *fakeSyncer) Sync(ctx context.Context, t *agent.Trigger) (agent.Outcome, error) {
	c := &call{ctx: ctx, trig: t, reply: make(chan reply, 1)}
	select {
	case s.calls <- c:
	case <-ctx.Done():
		return agent.Outcome{}, ctx.Err()
	}
	select {
	case r := <-c.reply:
		return r.out, r.err
	case <-ctx.Done():
		return agent.Outcome{}, ctx.Err()
	}
}

const site = "a11"

func testConfig() agent.Config {
	return agent.Config{Site: site, Interval: 10 * time.Minute, Jitter: 0.1, LeaseRenew: 30 * time.Second,
		BackoffMin: time.Second, BackoffMax: time.Minute, History: 5}
}

// harness is one running agent.
type harness struct {
	t        *testing.T
	clock    *clocktest.Fake
	syncer   *fakeSyncer
	reg      *prometheus.Registry
	agent    *agent.Agent
	triggers chan agent.Trigger
	cancel   context.CancelFunc
	done     chan error
	stopped  bool
}

func newFakeClock() *clocktest.Fake { return clocktest.New(clocktest.Start) }

func newTable(clock *clocktest.Fake) *leaseTable { return newLeaseTable(clock, 2*time.Minute) }

func start(t *testing.T, clock *clocktest.Fake, table *leaseTable, holder string) *harness {
	t.Helper()
	return startWith(t, clock, table.Lease("neutron:"+site, holder))
}

// startWith runs an agent holding its lease through lease.
func startWith(t *testing.T, clock *clocktest.Fake, lease agent.Lease) *harness {
	t.Helper()
	return startConfig(t, clock, lease, testConfig())
}

// startConfig runs an agent with cfg.
func startConfig(t *testing.T, clock *clocktest.Fake, lease agent.Lease, cfg agent.Config) *harness {
	t.Helper()
	h := &harness{t: t, clock: clock, syncer: &fakeSyncer{calls: make(chan *call)}, reg: prometheus.NewRegistry(),
		triggers: make(chan agent.Trigger), done: make(chan error, 1)}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	h.agent = agent.New(cfg, h.syncer, lease, logger, h.reg, agent.WithClock(clock))
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() { h.done <- h.agent.Run(ctx, h.triggers) }()
	t.Cleanup(func() {
		if !h.stopped {
			if err := h.stop(); err != nil {
				t.Errorf("Run() = %v, want nil", err)
			}
		}
	})
	return h
}

// next waits for the agent's next Sync.
func (h *harness) next() *call {
	h.t.Helper()
	select {
	case c := <-h.syncer.calls:
		return c
	case <-time.After(hangGuard):
		h.t.Fatal("no sync started")
		return nil
	}
}

func (h *harness) send(tr agent.Trigger) {
	h.t.Helper()
	select {
	case h.triggers <- tr:
	case <-time.After(hangGuard):
		h.t.Fatal("agent does not take triggers")
	}
}

// stop cancels Run and returns what it returned.
func (h *harness) stop() error {
	h.t.Helper()
	h.stopped = true
	h.cancel()
	select {
	case err := <-h.done:
		return err
	case <-time.After(hangGuard):
		h.t.Fatal("Run did not return after cancel")
		return nil
	}
}

// runs waits until the agent recorded n runs and returns them, newest first.
func (h *harness) runs(n int) []agent.RunRecord {
	h.t.Helper()
	var st agent.Status
	eventually(h.t, "runs recorded", func() bool { st = h.agent.Status(); return len(st.Runs) >= n })
	return st.Runs
}

// syncs waits until the agent finished n syncs, the last one at the fake
// clock's now, and recorded it; unlike runs, it is not bounded by the runs
// the page keeps. The counter goes up before the run is recorded, so both
// are waited for.
func (h *harness) syncs(n int) {
	h.t.Helper()
	eventually(h.t, "syncs finished", func() bool {
		got := 0.0
		for _, r := range []string{"ok", "error", "unreachable", "canceled"} {
			v, _ := metric(h.t, h.reg, "ipsync_runs_total", map[string]string{"site": site, "result": r})
			got += v
		}
		runs := h.agent.Status().Runs
		return got >= float64(n) && len(runs) > 0 && runs[0].End.Equal(h.clock.Now())
	})
}

func (h *harness) condition(name string) (agent.Condition, bool) {
	for _, c := range h.agent.Status().Conditions {
		if c.Name == name {
			return c, true
		}
	}
	return agent.Condition{}, false
}

// waitCondition waits until condition name has ok.
func (h *harness) waitCondition(name string, ok bool) agent.Condition {
	h.t.Helper()
	var c agent.Condition
	eventually(h.t, "condition "+name, func() bool {
		var seen bool
		c, seen = h.condition(name)
		return seen && c.OK == ok
	})
	return c
}

func (h *harness) get(path string) (int, string) {
	h.t.Helper()
	rec := httptest.NewRecorder()
	h.agent.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.String()
}

// eventually polls cond until it holds; the agent runs in its own
// goroutine, so its state shows up a little after the event causing it.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// metric is the value of the gauge or counter name with labels, and
// whether the series exists.
func metric(t *testing.T, g prometheus.Gatherer, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatalf("Gather() = %v", err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if matches(m, labels) {
				switch {
				case m.Gauge != nil:
					return m.GetGauge().GetValue(), true
				case m.Counter != nil:
					return m.GetCounter().GetValue(), true
				case m.Histogram != nil:
					return float64(m.GetHistogram().GetSampleCount()), true
				}
			}
		}
	}
	return 0, false
}

func matches(m *dto.Metric, labels map[string]string) bool {
	n := 0
	for _, lp := range m.GetLabel() {
		if v, ok := labels[lp.GetName()]; ok {
			if v != lp.GetValue() {
				return false
			}
			n++
		}
	}
	return n == len(labels)
}
