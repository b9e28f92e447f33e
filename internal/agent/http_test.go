package agent_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

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

// manyVLANsOutcome is a full sync of a dry run that found n VLANs missing.
func manyVLANsOutcome(n int) agent.Outcome {
	owner := resource.NeutronOwner(site)
	var desired []resource.Object
	for i := range n {
		desired = append(desired, &resource.VLAN{M: resource.Meta{Owner: owner}, Group: "a11-12-network", VID: uint16(i + 1), Name: fmt.Sprintf("tenant-net-%d", i)})
	}
	p := plan.Make(desired, nil, plan.DefaultPolicy(owner))
	return agent.Outcome{Plan: p, Drift: drift.FromPlan(p, nil)}
}

// TestStatusPageHead: the page's title names the daemon, its site and its
// state; a dry run wears a badge; the page reloads itself, sooner when the
// next sync is near.
func TestStatusPageHead(t *testing.T) {
	tests := []struct {
		name   string
		dryRun bool
		fail   bool
		title  string
		badges []string
		// refresh bounds the seconds between reloads.
		refresh [2]int
	}{
		{name: "drifting", title: "ipsync: Agent for site a11 — 1 drifting, 1 leak", badges: []string{`<span class="badge warn">1 drifting, 1 leak</span>`}, refresh: [2]int{30, 30}},
		{name: "dry run", dryRun: true, title: "ipsync: Agent for site a11 — 1 drifting, 1 leak (dry run)",
			badges: []string{`<span class="badge warn">1 drifting, 1 leak</span>`, `<span class="badge dry">dry run</span>`}, refresh: [2]int{30, 30}},
		// The retry is due after a backoff of a second or two.
		{name: "failing", fail: true, title: "ipsync: Agent for site a11 — failing", badges: []string{`<span class="badge bad">failing</span>`}, refresh: [2]int{5, 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			cfg := testConfig()
			cfg.DryRun = tt.dryRun
			h := startConfig(t, clock, newTable(clock).Lease("neutron:"+site, "agent-1"), cfg)
			h.next().answer(driftingOutcome(), nil)
			h.runs(1)
			if tt.fail {
				clock.Advance(12 * time.Minute)
				h.next().answer(agent.Outcome{}, agent.Unreachable("nautobot", errors.New("502 Bad Gateway")))
				h.runs(2)
				eventually(t, "retry scheduled", func() bool { return !h.agent.Status().NextSync.IsZero() })
			}
			_, body := h.get("/")
			if want := "<title>" + tt.title + "</title>"; !strings.Contains(body, want) {
				t.Errorf("page lacks %s", want)
			}
			for _, want := range tt.badges {
				if !strings.Contains(body, want) {
					t.Errorf("page lacks the badge %s", want)
				}
			}
			if !tt.dryRun && strings.Contains(body, "badge dry") {
				t.Errorf("an agent that writes wears the dry-run badge")
			}
			m := regexp.MustCompile(`<meta http-equiv="refresh" content="(\d+)">`).FindStringSubmatch(body)
			if m == nil {
				t.Fatalf("page does not reload itself")
			}
			if n, _ := strconv.Atoi(m[1]); n < tt.refresh[0] || n > tt.refresh[1] {
				t.Errorf("page reloads every %ds, want %d to %d", n, tt.refresh[0], tt.refresh[1])
			}
			if !strings.Contains(body, "reloads itself every "+m[1]+" seconds") {
				t.Errorf("page does not say how often it reloads")
			}
		})
	}
}

// TestStatusPageHistory: after several syncs the page charts them, and
// status.json has the same series.
func TestStatusPageHistory(t *testing.T) {
	clock := newFakeClock()
	cfg := testConfig()
	cfg.LeaseTTL = 48 * time.Hour
	h := startConfig(t, clock, newLeaseTable(clock, cfg.LeaseTTL).Lease("neutron:"+site, "agent-1"), cfg)
	_, body := h.get("/")
	if !strings.Contains(body, "No sync has ended yet.") || strings.Contains(body, "<svg") {
		t.Errorf("the page charts a history before any sync")
	}
	for i := range 4 {
		c := h.next()
		clock.Advance(time.Duration(i+1) * time.Second)
		if i == 2 {
			c.answer(agent.Outcome{}, agent.Unreachable("nautobot", errors.New("502 Bad Gateway")))
		} else {
			c.answer(driftingOutcome(), nil)
		}
		h.syncs(i + 1)
		clock.Advance(12 * time.Minute)
	}
	_, body = h.get("/")
	if n := strings.Count(body, `<svg xmlns="http://www.w3.org/2000/svg"`); n != 3 {
		t.Errorf("page has %d charts, want 3", n)
	}
	for _, want := range []string{"4 syncs, 1 failed, 3 objects written", "Sync duration", "Objects written", "Drift left by each full sync", "segment leaks"} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	_, js := h.get("/status.json")
	var st agent.Status
	if err := json.Unmarshal([]byte(js), &st); err != nil {
		t.Fatal(err)
	}
	if st.History.StepSeconds != 300 || len(st.History.Steps) != 4 {
		t.Fatalf("status.json history = %+v, want 4 steps of 300s", st.History)
	}
	first, failed := st.History.Steps[0], st.History.Steps[2]
	if first.Syncs != 1 || first.Writes != 1 || first.LongestSeconds != 1 || first.Drift["vlan"]["missing"] != 1 || first.Drift["segment"]["leak"] != 1 {
		t.Errorf("first step = %+v", first)
	}
	if failed.Failed != 1 || failed.Drift != nil || failed.LastResult != "unreachable" {
		t.Errorf("the failed sync's step = %+v, want a failure and no drift", failed)
	}
}

// TestDriftPages: the status page folds a kind of many objects and links
// to all of them, page by page, at /drift.
func TestDriftPages(t *testing.T) {
	clock := newFakeClock()
	cfg := testConfig()
	cfg.DryRun = true
	h := startConfig(t, clock, newTable(clock).Lease("neutron:"+site, "dry"), cfg)
	h.next().answer(manyVLANsOutcome(1200), nil)
	h.runs(1)
	_, body := h.get("/")
	link := "drift?drift=missing&amp;kind=vlan&amp;owner=neutron%3Aa11&amp;page=1"
	for _, want := range []string{"<strong>vlan</strong>: 1200 <small>(100 listed)</small>", "1100 more not listed here", `<a href="` + link + `">all 1200, page by page</a>`} {
		if !strings.Contains(body, want) {
			t.Errorf("status page lacks %q", want)
		}
	}
	if n := strings.Count(body, `<tr class="missing">`); n != drift.Shown {
		t.Errorf("status page lists %d VLANs, want %d", n, drift.Shown)
	}
	tests := []struct {
		path       string
		code       int
		rows       int
		want, lack []string
	}{
		{path: "/" + strings.ReplaceAll(link, "&amp;", "&"), code: 200, rows: 500,
			want: []string{"Objects 1 to 500 of 1200", "page 1 of 3", `<a href="drift?drift=missing&amp;kind=vlan&amp;owner=neutron%3Aa11&amp;page=2">next →</a>`, `<a href="./">← Agent for site a11</a>`}},
		{path: "/drift?owner=neutron:a11&kind=vlan&drift=missing&page=3", code: 200, rows: 200,
			want: []string{"Objects 1001 to 1200 of 1200", "a11-12-network/1200", `page=2">← previous</a>`}, lack: []string{"next →</a>"}},
		{path: "/drift?owner=neutron:a11&kind=vlan&drift=missing&page=4", code: 404},
		{path: "/drift?owner=neutron:a11&kind=vlan&drift=extra", code: 404},
		{path: "/drift?owner=neutron:b22&kind=vlan&drift=missing", code: 404},
		{path: "/drift?owner=neutron:a11&kind=vlan&drift=missing&page=x", code: 404},
	}
	for _, tt := range tests {
		code, body := h.get(tt.path)
		if code != tt.code {
			t.Errorf("%s = %d, want %d", tt.path, code, tt.code)
			continue
		}
		if n := strings.Count(body, `<tr class="missing">`); tt.code == 200 && n != tt.rows {
			t.Errorf("%s lists %d VLANs, want %d", tt.path, n, tt.rows)
		}
		for _, want := range tt.want {
			if !strings.Contains(body, want) {
				t.Errorf("%s lacks %q", tt.path, want)
			}
		}
		for _, lack := range tt.lack {
			if strings.Contains(body, lack) {
				t.Errorf("%s has %q", tt.path, lack)
			}
		}
		if tt.code == 200 && strings.Contains(body, `http-equiv="refresh"`) {
			t.Errorf("%s reloads itself under the operator's eyes", tt.path)
		}
	}
}
