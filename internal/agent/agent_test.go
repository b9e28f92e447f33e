package agent_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/agent"
)

func TestPeriodicSyncsAndSweeps(t *testing.T) {
	clock := newFakeClock()
	// A lease that outlasts the jumps of the clock: one lost and taken
	// back would ask for a sweep.
	cfg := testConfig()
	cfg.LeaseTTL = 48 * time.Hour
	h := startConfig(t, clock, newLeaseTable(clock, cfg.LeaseTTL).Lease("neutron:"+site, "agent-1"), cfg)

	// A sweep first, then periodic syncs of the whole site until the
	// sweep interval (24h) has passed.
	for i, wantSweep := range []bool{true, false, false, true} {
		c := h.next()
		if c.trig == nil || !c.trig.Full || c.trig.Sweep != wantSweep || c.trig.Events > 0 {
			t.Fatalf("sync %d: trigger = %+v, want a full sync, sweep %v", i, c.trig, wantSweep)
		}
		c.answer(agent.Outcome{}, nil)
		h.runs(i + 1)
		// Past the interval and its jitter; the last step past the sweep's.
		if i == 2 {
			clock.Advance(27 * time.Hour)
		} else {
			clock.Advance(12 * time.Minute)
		}
	}
	if got, _ := metric(t, h.reg, "ipsync_runs_total", map[string]string{"site": site, "result": "ok"}); got < 4 {
		t.Errorf("ipsync_runs_total{result=ok} = %v, want >= 4", got)
	}
}

func TestTriggerSyncsAtOnce(t *testing.T) {
	clock := newFakeClock()
	h := start(t, clock, newTable(clock), "agent-1")
	h.next().answer(agent.Outcome{}, nil)
	h.runs(1)

	emitted := clock.Now()
	clock.Advance(3 * time.Second) // short of any timer: only the trigger can start the sync
	h.send(agent.Trigger{NetworkIDs: []string{"net-1"}, Events: 1, Oldest: emitted})
	c := h.next()
	want := &agent.Trigger{NetworkIDs: []string{"net-1"}, Events: 1, Oldest: emitted}
	if !reflect.DeepEqual(c.trig, want) {
		t.Fatalf("trigger = %+v, want %+v", c.trig, want)
	}
	c.answer(agent.Outcome{Writes: 1}, nil)
	runs := h.runs(2)
	if got, want := runs[0].Trigger, "events 1"; got != want {
		t.Errorf("last run trigger = %q, want %q", got, want)
	}
	if got, _ := metric(t, h.reg, "ipsync_event_lag_seconds", map[string]string{"site": site}); got != 1 {
		t.Errorf("ipsync_event_lag_seconds sample count = %v, want 1", got)
	}
}

func TestQueuedTriggersMerge(t *testing.T) {
	t0 := time.Date(2025, 3, 4, 5, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		queued []agent.Trigger
		want   *agent.Trigger
	}{
		{
			name: "narrowed",
			queued: []agent.Trigger{
				{NetworkIDs: []string{"net-1"}, Events: 2, Oldest: t0.Add(time.Second)},
				{NetworkIDs: []string{"net-2", "net-1"}, RangesChanged: true, Events: 3, Oldest: t0},
			},
			want: &agent.Trigger{NetworkIDs: []string{"net-1", "net-2"}, RangesChanged: true, Events: 5, Oldest: t0},
		},
		{
			// The whole site is synced, and the named network read anew:
			// a sync of the whole site between sweeps may not read Neutron.
			name: "full keeps the named networks",
			queued: []agent.Trigger{
				{NetworkIDs: []string{"net-1"}, Events: 1, Oldest: t0},
				{Full: true, Events: 1, Oldest: t0.Add(time.Second)},
			},
			want: &agent.Trigger{NetworkIDs: []string{"net-1"}, Full: true, Events: 2, Oldest: t0},
		},
		{
			name: "unattributed reads Neutron whole",
			queued: []agent.Trigger{
				{NetworkIDs: []string{"net-1"}, Events: 1, Oldest: t0},
				{Unattributed: true, Events: 1, Oldest: t0.Add(time.Second)},
			},
			want: &agent.Trigger{Full: true, Unattributed: true, Events: 2, Oldest: t0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			h := start(t, clock, newTable(clock), "agent-1")
			first := h.next() // held open while the triggers queue up
			for _, tr := range tt.queued {
				h.send(tr)
			}
			first.answer(agent.Outcome{}, nil)
			c := h.next()
			if !reflect.DeepEqual(c.trig, tt.want) {
				t.Errorf("merged trigger = %+v, want %+v", c.trig, tt.want)
			}
			c.answer(agent.Outcome{}, nil)
			if got := h.runs(2)[0].Events; got != tt.want.Events {
				t.Errorf("last run events = %d, want %d", got, tt.want.Events)
			}
		})
	}
}

func TestUnreachableBacksOffAndRecovers(t *testing.T) {
	clock := newFakeClock()
	h := start(t, clock, newTable(clock), "agent-1")
	down := agent.Unreachable("neutron", errors.New("dial tcp: connection refused"))

	h.next().answer(agent.Outcome{}, down)
	c := h.waitCondition("neutron", false)
	if !strings.Contains(c.Message, "connection refused") {
		t.Errorf("condition message = %q, want the error", c.Message)
	}
	if code, body := h.get("/readyz"); code != 503 || !strings.Contains(body, "neutron") {
		t.Errorf("/readyz = %d %q, want 503 naming neutron", code, body)
	}
	if got, ok := metric(t, h.reg, "ipsync_condition", map[string]string{"site": site, "condition": "neutron"}); !ok || got != 0 {
		t.Errorf("ipsync_condition{condition=neutron} = %v (present %v), want 0", got, ok)
	}
	if got := h.runs(1)[0].Result; got != "unreachable" {
		t.Errorf("run result = %q, want unreachable", got)
	}

	// A trigger during backoff waits for the retry and joins it, instead of
	// hitting the unreachable side at once.
	h.send(agent.Trigger{NetworkIDs: []string{"net-1"}, Events: 1})
	clock.Advance(time.Minute) // BackoffMax, well short of the interval
	c2 := h.next()
	if c2.trig == nil || !c2.trig.Full || c2.trig.Events != 1 {
		t.Fatalf("retry trigger = %+v, want the failed full sync merged with the queued event", c2.trig)
	}
	c2.answer(agent.Outcome{}, down)
	h.runs(2)
	if got, _ := metric(t, h.reg, "ipsync_consecutive_soft_errors", map[string]string{"site": site}); got != 2 {
		t.Errorf("ipsync_consecutive_soft_errors = %v after two failures, want 2", got)
	}
	clock.Advance(time.Minute)
	h.next().answer(agent.Outcome{}, nil)

	h.waitCondition("neutron", true)
	h.runs(3) // recorded last, after the metrics
	if got, _ := metric(t, h.reg, "ipsync_consecutive_soft_errors", map[string]string{"site": site}); got != 0 {
		t.Errorf("ipsync_consecutive_soft_errors = %v after a success, want 0", got)
	}
	if got, _ := metric(t, h.reg, "ipsync_no_op_runs_total", map[string]string{"site": site}); got != 1 {
		t.Errorf("ipsync_no_op_runs_total = %v after one sync that wrote nothing, want 1", got)
	}
	if code, body := h.get("/readyz"); code != 200 {
		t.Errorf("/readyz after recovery = %d %q, want 200", code, body)
	}
	if got, _ := metric(t, h.reg, "ipsync_condition", map[string]string{"site": site, "condition": "neutron"}); got != 1 {
		t.Errorf("ipsync_condition{condition=neutron} after recovery = %v, want 1", got)
	}
	if got, _ := metric(t, h.reg, "ipsync_runs_total", map[string]string{"site": site, "result": "unreachable"}); got != 2 {
		t.Errorf("ipsync_runs_total{result=unreachable} = %v, want 2", got)
	}
}

// TestHealthySidesListed: the sides a sync reads are listed as conditions
// from the first success on, healthy, in the status and the metrics; not
// only once one of them failed.
func TestHealthySidesListed(t *testing.T) {
	clock := newFakeClock()
	cfg := testConfig()
	cfg.Sides = []string{"neutron", "netbox"}
	h := startConfig(t, clock, newTable(clock).Lease("neutron:"+site, "agent-1"), cfg)
	h.next().answer(agent.Outcome{}, nil)
	for _, name := range []string{"neutron", "netbox", agent.CondSync} {
		if c := h.waitCondition(name, true); c.Message == "" {
			t.Errorf("condition %s says nothing", name)
		}
		if got, ok := metric(t, h.reg, "ipsync_condition", map[string]string{"site": site, "condition": name}); !ok || got != 1 {
			t.Errorf("ipsync_condition{condition=%s} = %v (present %v), want 1", name, got, ok)
		}
	}
}

func TestErrorWithoutSideFailsSyncCondition(t *testing.T) {
	clock := newFakeClock()
	h := start(t, clock, newTable(clock), "agent-1")
	h.next().answer(agent.Outcome{}, nil)
	h.runs(1)
	h.send(agent.Trigger{NetworkIDs: []string{"net-1"}, Events: 1})
	h.next().answer(agent.Outcome{}, errors.New("plan refused: 1 conflict(s)"))
	h.waitCondition(agent.CondSync, false)
	// A refused plan needs a person, not a restart: still ready.
	if code, body := h.get("/readyz"); code != 200 {
		t.Errorf("/readyz = %d %q, want 200", code, body)
	}
	clock.Advance(time.Minute)
	c := h.next()
	if c.trig == nil || !reflect.DeepEqual(c.trig.NetworkIDs, []string{"net-1"}) {
		t.Fatalf("retry trigger = %+v, want the failed narrowed sync again", c.trig)
	}
	c.answer(agent.Outcome{}, nil)
	h.waitCondition(agent.CondSync, true)
}

func TestLeaseOneWriter(t *testing.T) {
	clock := newFakeClock()
	table := newTable(clock)
	first := start(t, clock, table, "agent-1")
	first.next().answer(agent.Outcome{}, nil)
	first.runs(1)

	second := start(t, clock, table, "agent-2")
	c := second.waitCondition(agent.CondLease, false)
	if want := "another agent holds the lease for " + site; c.Message != want {
		t.Errorf("standby lease message = %q, want %q", c.Message, want)
	}
	if got, _ := metric(t, second.reg, "ipsync_lease_held", map[string]string{"site": site}); got != 0 {
		t.Errorf("standby ipsync_lease_held = %v, want 0", got)
	}
	// The standby reads both sides whole once, then keeps its views
	// current with what notifications name; it plans and writes nothing.
	c1 := second.next()
	if c1.trig == nil || !c1.trig.Standby || !c1.trig.Sweep {
		t.Fatalf("standby's first sync = %+v, want a standby sweep", c1.trig)
	}
	c1.answer(agent.Outcome{}, nil)
	second.send(agent.Trigger{NetworkIDs: []string{"net-1"}, Events: 1})
	c1 = second.next()
	if c1.trig == nil || !c1.trig.Standby || c1.trig.Full || !reflect.DeepEqual(c1.trig.NetworkIDs, []string{"net-1"}) {
		t.Fatalf("standby's sync of a notification = %+v, want a standby sync of net-1", c1.trig)
	}
	c1.answer(agent.Outcome{}, nil)

	if err := first.stop(); err != nil {
		t.Fatalf("first Run() = %v, want nil", err)
	}
	if got := table.Holder("neutron:" + site); got != "" {
		t.Fatalf("holder after shutdown = %q, want none", got)
	}
	clock.Advance(30 * time.Second) // the standby's retry
	// Its views are current: the takeover plans on them, no sweep.
	c2 := second.next()
	if c2.trig == nil || c2.trig.Standby || !c2.trig.Full || c2.trig.Sweep {
		t.Errorf("takeover trigger = %+v, want a full sync that writes, not a sweep", c2.trig)
	}
	c2.answer(agent.Outcome{}, nil)
	second.waitCondition(agent.CondLease, true)
	if got := table.Holder("neutron:" + site); got != "agent-2" {
		t.Errorf("holder after takeover = %q, want agent-2", got)
	}
}

func TestLeaseTakeoverAfterExpiry(t *testing.T) {
	clock := newFakeClock()
	table := newTable(clock)
	// A crashed agent: it took the lease and never renews or releases it.
	if ok, err := table.Lease("neutron:"+site, "crashed").Acquire(context.Background()); !ok || err != nil {
		t.Fatalf("Acquire() = %v, %v, want true, nil", ok, err)
	}
	h := start(t, clock, table, "agent-1")
	h.waitCondition(agent.CondLease, false)
	for table.Holder("neutron:"+site) == "crashed" {
		select {
		case c := <-h.syncer.calls:
			if !c.trig.Standby {
				t.Fatalf("synced (trigger %+v) before the crashed agent's lease expired", c.trig)
			}
			c.answer(agent.Outcome{}, nil)
		default:
		}
		clock.Advance(30 * time.Second)
	}
	clock.Advance(30 * time.Second)
	for c := h.next(); ; c = h.next() {
		c.answer(agent.Outcome{}, nil)
		if !c.trig.Standby {
			break
		}
	}
	h.waitCondition(agent.CondLease, true)
}

func TestShutdownCancelsInflightSync(t *testing.T) {
	clock := newFakeClock()
	table := newTable(clock)
	h := start(t, clock, table, "agent-1")
	c := h.next() // never answered: the shutdown must end it

	if err := h.stop(); err != nil {
		t.Fatalf("Run() = %v, want nil", err)
	}
	if err := c.ctx.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("in-flight sync context err = %v, want context.Canceled", err)
	}
	if got := table.Holder("neutron:" + site); got != "" {
		t.Errorf("lease holder after shutdown = %q, want none", got)
	}
	if got := h.agent.Status().Runs; len(got) != 1 || got[0].Result != "canceled" {
		t.Errorf("runs after shutdown = %+v, want one canceled", got)
	}
	if got, _ := metric(t, h.reg, "ipsync_lease_held", map[string]string{"site": site}); got != 0 {
		t.Errorf("ipsync_lease_held after shutdown = %v, want 0", got)
	}
	if st := h.agent.Stopped(); st.Pending == nil || !st.Pending.Full {
		t.Errorf("Stopped() = %+v, want the cancelled full sync pending", st)
	}
}

// TestShutdownLeavesWhatNoSyncFinished: the networks of a sync cut short
// by the stop, and of triggers not yet started, are left for the caller
// to keep: their notifications were taken from the queue.
func TestShutdownLeavesWhatNoSyncFinished(t *testing.T) {
	clock := newFakeClock()
	h := start(t, clock, newTable(clock), "agent-1")
	h.next().answer(agent.Outcome{}, nil)
	h.send(agent.Trigger{NetworkIDs: []string{"n1"}, Events: 1})
	h.next() // never answered
	h.send(agent.Trigger{NetworkIDs: []string{"n2"}, Events: 1})
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	st := h.agent.Stopped()
	if st.Pending == nil || !slices.Equal(slices.Sorted(slices.Values(st.Pending.NetworkIDs)), []string{"n1", "n2"}) {
		t.Errorf("Stopped() = %+v (pending %+v), want n1 and n2 pending", st, st.Pending)
	}
}

func TestSetCondition(t *testing.T) {
	clock := newFakeClock()
	h := start(t, clock, newTable(clock), "agent-1")
	h.next().answer(agent.Outcome{}, nil)
	h.runs(1)

	h.agent.SetCondition("rabbitmq", false, "dial amqp: connection refused")
	if code, body := h.get("/readyz"); code != 503 || !strings.Contains(body, "rabbitmq") {
		t.Errorf("/readyz = %d %q, want 503 naming rabbitmq", code, body)
	}
	// A sync succeeding says nothing about the event bus.
	h.send(agent.Trigger{Full: true})
	h.next().answer(agent.Outcome{}, nil)
	h.runs(2)
	if c, _ := h.condition("rabbitmq"); c.OK {
		t.Errorf("rabbitmq condition cleared by a sync, want it kept until SetCondition says otherwise")
	}
	h.agent.SetCondition("rabbitmq", true, "connected")
	if code, body := h.get("/readyz"); code != 200 {
		t.Errorf("/readyz = %d %q, want 200", code, body)
	}
}

// TestNamedNetworksKeptUntilSynced: networks a notification named stay
// asked for across failed syncs and the periodic sync of the whole site
// they merge into, until a sync that covered them succeeded.
func TestNamedNetworksKeptUntilSynced(t *testing.T) {
	clock := newFakeClock()
	cfg := testConfig()
	cfg.LeaseTTL = 48 * time.Hour // the clock's jumps must not move the lease
	h := startConfig(t, clock, newLeaseTable(clock, cfg.LeaseTTL).Lease("neutron:"+site, "agent-1"), cfg)
	h.next().answer(agent.Outcome{}, nil) // the first sweep
	h.runs(1)

	h.send(agent.Trigger{NetworkIDs: []string{"net-1"}, Events: 1})
	c := h.next()
	if c.trig == nil || c.trig.Full || !slices.Equal(c.trig.NetworkIDs, []string{"net-1"}) {
		t.Fatalf("trigger = %+v, want net-1 narrowed", c.trig)
	}
	c.answer(agent.Outcome{}, agent.Unreachable("nautobot", errors.New("503 Service Unavailable")))
	h.runs(2)

	// The periodic sync falls due during the backoff and takes the
	// failed work in; a refused plan fails it too.
	clock.Advance(12 * time.Minute)
	for i := range 2 {
		c = h.next()
		if c.trig == nil || !c.trig.Full || !slices.Equal(c.trig.NetworkIDs, []string{"net-1"}) {
			t.Fatalf("sync %d after the failure: trigger = %+v, want the whole site with net-1 read anew", i, c.trig)
		}
		if i == 0 {
			c.answer(agent.Outcome{}, errors.New("plan refused: status active is not allowed on IP addresses"))
			h.runs(3)
			clock.Advance(time.Minute)
		}
	}
	c.answer(agent.Outcome{}, nil)
	h.runs(4)
	clock.Advance(12 * time.Minute)
	if c = h.next(); c.trig == nil || !c.trig.Full || len(c.trig.NetworkIDs) > 0 {
		t.Errorf("periodic sync after the one that succeeded: trigger = %+v, want the whole site, no network named", c.trig)
	}
}

// TestInputChangeSkipsBackoff fails a sync and then sends a trigger
// saying the input changed (the reconciler's spec): it starts at once,
// where any other trigger waits for the backoff.
func TestInputChangeSkipsBackoff(t *testing.T) {
	clock := newFakeClock()
	h := start(t, clock, newTable(clock), "agent-1")
	h.next().answer(agent.Outcome{}, errors.New("spec invalid: a.yaml:3: vid 5000 out of range"))
	h.waitCondition(agent.CondSync, false)
	h.send(agent.Trigger{Full: true, Input: true})
	c := h.next() // the clock has not moved: no backoff was waited
	if c.trig == nil || !c.trig.Full || c.trig.Input {
		t.Fatalf("trigger = %+v, want a full sync, Input not carried", c.trig)
	}
	c.answer(agent.Outcome{}, nil)
	h.waitCondition(agent.CondSync, true)
}
