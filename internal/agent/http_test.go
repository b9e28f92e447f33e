package agent_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/ipsync/ipsync/internal/agent"
	"github.com/ipsync/ipsync/internal/drift"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// driftingOutcome is a full sync that found a VLAN missing in the target
// and a leaked segment, and wrote the VLAN.
func driftingOutcome() agent.Outcome {
	owner := resource.NeutronOwner(site)
	vlan := &resource.VLAN{M: resource.Meta{Owner: owner}, Group: "a11-12-network", VID: 101, Name: "tenant-net-1"}
	p := plan.Make([]resource.Object{vlan}, nil, plan.DefaultPolicy(owner))
	leaks := []drift.Leak{{Kind: "segment", Key: "seg-7", Message: "VLAN segment without ports"}}
	return agent.Outcome{Plan: p, Writes: 1, Drift: drift.FromPlan(p, leaks), Reads: map[string]int{"neutron": 4, "nautobot": 6}}
}

func TestMetricsExposed(t *testing.T) {
	clock := newFakeClock()
	h := start(t, clock, newTable(clock), "agent-1")
	h.next().answer(driftingOutcome(), nil)
	h.runs(1)
	h.send(agent.Trigger{NetworkIDs: []string{"net-1"}, Events: 1, Oldest: clock.Now()})
	h.next().answer(agent.Outcome{}, nil)
	h.runs(2)
	h.agent.SetCondition("rabbitmq", true, "connected")

	names := []string{
		"ipsync_runs_total", "ipsync_run_duration_seconds", "ipsync_objects", "ipsync_writes_total",
		"ipsync_drift_objects", "ipsync_last_sync_timestamp_seconds", "ipsync_consecutive_soft_errors", "ipsync_no_op_runs_total", "ipsync_event_lag_seconds",
		"ipsync_condition", "ipsync_lease_held",
	}
	code, body := h.get("/metrics")
	if code != 200 {
		t.Fatalf("/metrics = %d, want 200", code)
	}
	for _, name := range names {
		if n, err := testutil.GatherAndCount(h.reg, name); err != nil || n == 0 {
			t.Errorf("GatherAndCount(%s) = %d, %v, want series", name, n, err)
		}
		if !strings.Contains(body, "# TYPE "+name+" ") {
			t.Errorf("/metrics lacks %s", name)
		}
	}

	want := `
# HELP ipsync_writes_total Objects written to the target.
# TYPE ipsync_writes_total counter
ipsync_writes_total{site="a11"} 1
# HELP ipsync_drift_objects Drifting objects and leaks found by the last full sync, by kind and drift.
# TYPE ipsync_drift_objects gauge
ipsync_drift_objects{drift="leak",kind="segment",site="a11"} 1
ipsync_drift_objects{drift="missing",kind="vlan",site="a11"} 1
`
	if err := testutil.GatherAndCompare(h.reg, strings.NewReader(want), "ipsync_writes_total", "ipsync_drift_objects"); err != nil {
		t.Errorf("metrics differ: %v", err)
	}
	if got, _ := metric(t, h.reg, "ipsync_objects", map[string]string{"site": site, "kind": "vlan", "action": "create"}); got != 1 {
		t.Errorf("ipsync_objects{kind=vlan,action=create} = %v, want 1", got)
	}
	// The narrowed sync saw part of the site: it leaves the full sync's counts.
	if got, _ := metric(t, h.reg, "ipsync_drift_objects", map[string]string{"site": site, "kind": "vlan", "drift": "missing"}); got != 1 {
		t.Errorf("ipsync_drift_objects after a narrowed sync = %v, want 1 from the last full sync", got)
	}
}

func TestHealthz(t *testing.T) {
	clock := newFakeClock()
	h := start(t, clock, newTable(clock), "agent-1")
	// Alive before any sync finished, not ready.
	if code, _ := h.get("/healthz"); code != 200 {
		t.Errorf("/healthz = %d, want 200", code)
	}
	if code, body := h.get("/readyz"); code != 503 || !strings.Contains(body, "no sync has succeeded") {
		t.Errorf("/readyz before a sync = %d %q, want 503 saying no sync succeeded", code, body)
	}
	h.next().answer(agent.Outcome{}, nil)
	h.runs(1)
	if code, body := h.get("/readyz"); code != 200 {
		t.Errorf("/readyz = %d %q, want 200", code, body)
	}
	if code, _ := h.get("/nope"); code != 404 {
		t.Errorf("/nope = %d, want 404", code)
	}
}

func TestStatusPage(t *testing.T) {
	clock := newFakeClock()
	h := start(t, clock, newTable(clock), "agent-1")

	code, body := h.get("/")
	if code != 200 || !strings.Contains(body, "No sync has run yet") {
		t.Errorf("/ before a sync = %d, want 200 saying no sync ran; body:\n%s", code, body)
	}

	h.next().answer(driftingOutcome(), nil)
	h.runs(1)
	h.send(agent.Trigger{NetworkIDs: []string{"net-1"}, Events: 3})
	h.next().answer(agent.Outcome{}, agent.Unreachable("nautobot", errors.New("502 Bad Gateway")))
	h.runs(2)

	code, body = h.get("/")
	if code != 200 {
		t.Fatalf("/ = %d, want 200", code)
	}
	for _, want := range []string{
		"<code>a11</code>",          // site
		"held by this agent",        // lease
		"a11-12-network/101",        // drift item
		"seg-7",                     // leak
		"events 3",                  // last run's trigger
		"unreachable",               // its result
		"nautobot unreachable: 502", // its error and the condition
		"<td>sweep</td>",            // the run before
		"neutron: 4",                // reads
	} {
		if !strings.Contains(body, want) {
			t.Errorf("status page lacks %q", want)
		}
	}
	if strings.Contains(strings.ToLower(body), "<script") {
		t.Errorf("status page has a script")
	}

	code, body = h.get("/status.json")
	if code != 200 {
		t.Fatalf("/status.json = %d, want 200", code)
	}
	var st agent.Status
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("decode /status.json: %v", err)
	}
	if got, want := len(st.Runs), 2; got != want {
		t.Errorf("status.json runs = %d, want %d", got, want)
	}
	if len(st.Runs) > 0 && st.Runs[0].Trigger != "events 3" {
		t.Errorf("status.json newest run trigger = %q, want %q", st.Runs[0].Trigger, "events 3")
	}
	if st.Drift == nil || st.Drift.Count() != 2 {
		t.Errorf("status.json drift = %+v, want the VLAN and the leak", st.Drift)
	}
	if st.Ready {
		t.Errorf("status.json ready = true with nautobot unreachable")
	}
}

// TestStatusPageOfADryRun: a dry run says so at the top of its page and in
// status.json, and its lease row says it takes none rather than failing.
func TestStatusPageOfADryRun(t *testing.T) {
	clock := newFakeClock()
	cfg := testConfig()
	cfg.DryRun = true
	h := startConfig(t, clock, newTable(clock).Lease("neutron:"+site, "dry"), cfg)
	h.next().answer(driftingOutcome(), nil)
	h.runs(1)
	code, body := h.get("/")
	if code != 200 {
		t.Fatalf("/ = %d, want 200", code)
	}
	for _, want := range []string{"(dry run)", "writes nothing", "not taken (dry run)", "a11-12-network/101"} {
		if !strings.Contains(body, want) {
			t.Errorf("dry run's status page lacks %q", want)
		}
	}
	if strings.Contains(body, "not held by this agent") {
		t.Errorf("dry run's status page reports the lease as failing")
	}
	_, body = h.get("/status.json")
	var st agent.Status
	if err := json.Unmarshal([]byte(body), &st); err != nil || !st.DryRun || st.LeaseHeld {
		t.Errorf("status.json dry_run %v lease_held %v (%v), want a dry run holding no lease", st.DryRun, st.LeaseHeld, err)
	}
}
