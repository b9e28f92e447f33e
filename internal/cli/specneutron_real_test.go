package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/agent"
	"github.com/ipsync/ipsync/internal/drift"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
)

// TestAgentWritesSpecToNeutron runs the agent of a site that takes the
// spec's segment ranges and subnet pools against a real Neutron, the
// emulator as its Nautobot: a dry run writes nothing and shows the spec's
// objects missing there; the agent that holds the lease writes them in its
// first sync and nothing in the next; a dry run after it finds nothing to
// write. Each step runs two syncs of the whole site, so that a rerun
// writing again would show.
func TestAgentWritesSpecToNeutron(t *testing.T) {
	base := neutronURL(t)
	srv := servertest.Emulator(t)
	cfg := siteConfig(t, srv, base, `    segment_ranges: true
    subnet_pools: true
agent:
  interval: 2s
  lease_ttl: 9s
  lease_renew: 3s
`)
	// The Neutron is shared: what an earlier run left would be adopted or
	// in the way; what this one writes goes when it ends.
	dropSpecFromNeutron(t, base)
	t.Cleanup(func() { dropSpecFromNeutron(t, base) })
	mustRun(t, "bootstrap", "--config", cfg, "--commit")
	mustRun(t, "apply", "--config", cfg, "--commit")

	steps := []struct {
		name  string
		flags []string
		// inNeutron says the spec's objects are in Neutron before the step.
		inNeutron bool
	}{
		{"a dry run writes nothing", []string{"--dry-run"}, false},
		{"the holder writes once", nil, false},
		{"a dry run after it finds it all there", []string{"--dry-run"}, true},
	}
	for _, st := range steps {
		dry := len(st.flags) > 0
		a := startAgent(t, cfg, st.flags...)
		firstWrites := -1
		for cycle := 1; cycle <= 2; cycle++ {
			a.waitFor(t, "finish a sync of the whole site", 2*time.Minute, func() bool { return len(a.fullRuns(t)) >= cycle })
			written := a.counter(t, `ipsync_neutron_writes_total{site="a11"}`)
			if cycle == 1 {
				firstWrites = written
			}
			switch {
			case dry || st.inNeutron:
				if written != 0 {
					t.Errorf("%s: sync %d: %d objects written to Neutron, want none", st.name, cycle, written)
				}
			case cycle == 1 && written == 0:
				t.Errorf("%s: the first sync wrote nothing to Neutron", st.name)
			case cycle == 2 && written != firstWrites:
				t.Errorf("%s: the second sync wrote %d objects to Neutron again", st.name, written-firstWrites)
			}
		}
		status := a.status(t)
		if runs := a.fullRuns(t); runs[len(runs)-1].Writes != 0 {
			t.Errorf("%s: the second sync of the whole site wrote %d objects, want none", st.name, runs[len(runs)-1].Writes)
		}
		cond, ok := conditionOf(status, agent.CondSpec)
		wantMsg := "in its Neutron"
		if dry && !st.inNeutron {
			wantMsg = "dry run: "
		}
		if !ok || !cond.OK || !strings.Contains(cond.Message, wantMsg) {
			t.Errorf("%s: condition %s = %+v, %v; want it holding, saying %q", st.name, agent.CondSpec, cond, ok, wantMsg)
		}
		if ok := a.metric(t, `ipsync_condition{condition="spec",site="a11"}`); ok != "1" {
			t.Errorf("%s: ipsync_condition spec = %q, want 1", st.name, ok)
		}
		missing := neutronDrift(t, status)
		if want := dry && !st.inNeutron; (missing > 0) != want {
			t.Errorf("%s: the status page's drift in neutron:a11 has %d objects missing; want some: %v", st.name, missing, want)
		}
		a.stop(t, time.Minute)

		ranges, pools := specInNeutron(t, base)
		if want := st.inNeutron || !dry; (len(ranges) == 3 && len(pools) == 1) != want {
			t.Errorf("%s: after it, Neutron holds the spec's ranges %v and pools %v; want all: %v", st.name, ranges, pools, want)
		}
	}
	if out := mustRun(t, "plan", "--config", cfg, "--site", "a11", "--target", "neutron"); !strings.Contains(out, "No changes") {
		t.Errorf("plan --target neutron after the agent wrote:\n%s", out)
	}

	t.Run("a spec that does not load", func(t *testing.T) {
		broken := filepath.Join(t.TempDir(), "broken.yaml")
		if err := os.WriteFile(broken, []byte("segment_ranges:\n  - {name: a11-x, network_type: vlan, minimum: 9, maximum: 1}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(cfg)
		if err != nil {
			t.Fatal(err)
		}
		bad := regexp.MustCompile(`paths: \[[^\]]*\]`).ReplaceAllString(string(raw), fmt.Sprintf("paths: [%q]", broken))
		a := startAgent(t, writeConfig(t, bad))
		// The site's own sync goes on: it needs nothing of the spec.
		a.waitFor(t, "finish a sync of the whole site", 2*time.Minute, func() bool { return len(a.fullRuns(t)) >= 1 })
		c, ok := conditionOf(a.status(t), agent.CondSpec)
		if !ok || c.OK || !strings.Contains(c.Message, "broken.yaml:2") {
			t.Errorf("condition %s = %+v, %v; want it failing, naming broken.yaml:2", agent.CondSpec, c, ok)
		}
		if code, body := httpGet("http://" + a.listen + "/readyz"); code != http.StatusOK {
			t.Errorf("/readyz = %d %s: a spec that does not load is no reason to restart the agent", code, body)
		}
		if ranges, pools := specInNeutron(t, base); len(ranges) != 3 || len(pools) != 1 {
			t.Errorf("with the spec broken, Neutron holds the spec's ranges %v and pools %v; want them left as they were", ranges, pools)
		}
	})
}

// fullRuns are the agent's successful syncs of the whole site.
func (a *runningAgent) fullRuns(t *testing.T) []agent.RunRecord {
	t.Helper()
	var out []agent.RunRecord
	for _, r := range a.runs(t) {
		if r.Result == "ok" && (r.Trigger == "sweep" || r.Trigger == "full") {
			out = append(out, r)
		}
	}
	return out
}

// counter is a counter's value on the agent's /metrics; 0 when absent.
func (a *runningAgent) counter(t *testing.T, series string) int {
	t.Helper()
	v := a.metric(t, series)
	if v == "" {
		return 0
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("%s = %q: %v", series, v, err)
	}
	return int(f)
}

func (a *runningAgent) status(t *testing.T) agent.Status {
	t.Helper()
	code, body := httpGet("http://" + a.listen + "/status.json")
	var st agent.Status
	if code != http.StatusOK || json.Unmarshal([]byte(body), &st) != nil {
		t.Fatalf("status.json: %d %s", code, body)
	}
	return st
}

func conditionOf(st agent.Status, name string) (agent.Condition, bool) {
	i := slices.IndexFunc(st.Conditions, func(c agent.Condition) bool { return c.Name == name })
	if i < 0 {
		return agent.Condition{}, false
	}
	return st.Conditions[i], true
}

// neutronDrift counts the spec's objects the status page shows missing in
// site a11's Neutron; it fails the test when the page has no such owner.
func neutronDrift(t *testing.T, st agent.Status) int {
	t.Helper()
	if st.Drift == nil {
		t.Fatal("status.json has no drift")
	}
	i := slices.IndexFunc(st.Drift.Owners, func(o drift.Owner) bool { return o.Target == "neutron:a11" })
	if i < 0 {
		t.Fatalf("status.json's drift has no owner in neutron:a11: %+v", st.Drift.Owners)
	}
	o := st.Drift.Owners[i]
	if o.Error != "" {
		t.Fatalf("the spec's drift in neutron:a11 could not be told: %s", o.Error)
	}
	n := 0
	for _, it := range o.Items {
		if it.Drift == "missing" {
			n++
		}
	}
	return n
}

// specInNeutron lists the examples' segment ranges of site a11 and its
// subnet pool as Neutron holds them marked as the spec's.
func specInNeutron(t *testing.T, base string) (ranges, pools []string) {
	t.Helper()
	var rs struct {
		Ranges []struct {
			Name string   `json:"name"`
			Tags []string `json:"tags"`
		} `json:"network_segment_ranges"`
	}
	neutronCall(t, http.MethodGet, base+"/v2.0/network_segment_ranges", nil, &rs)
	for _, r := range rs.Ranges {
		if strings.HasPrefix(r.Name, "a11-") && slices.Contains(r.Tags, "ipsync_owner=static:deploy") {
			ranges = append(ranges, r.Name)
		}
	}
	var ps struct {
		Pools []struct {
			Name string   `json:"name"`
			Tags []string `json:"tags"`
		} `json:"subnetpools"`
	}
	neutronCall(t, http.MethodGet, base+"/v2.0/subnetpools?name=a11-tenant-v4", nil, &ps)
	for _, p := range ps.Pools {
		if slices.Contains(p.Tags, "ipsync_owner=static:deploy") {
			pools = append(pools, p.Name)
		}
	}
	return ranges, pools
}

// dropSpecFromNeutron deletes the examples' a11 ranges, its subnet pool
// and the address scope of its namespace: pools before their scopes.
func dropSpecFromNeutron(t *testing.T, base string) {
	t.Helper()
	var rs struct {
		Ranges []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"network_segment_ranges"`
	}
	neutronCall(t, http.MethodGet, base+"/v2.0/network_segment_ranges", nil, &rs)
	var urls []string
	for _, r := range rs.Ranges {
		if strings.HasPrefix(r.Name, "a11-") {
			urls = append(urls, base+"/v2.0/network_segment_ranges/"+r.ID)
		}
	}
	var ps struct {
		Pools []struct {
			ID string `json:"id"`
		} `json:"subnetpools"`
	}
	neutronCall(t, http.MethodGet, base+"/v2.0/subnetpools?name=a11-tenant-v4", nil, &ps)
	for _, p := range ps.Pools {
		urls = append(urls, base+"/v2.0/subnetpools/"+p.ID)
	}
	var ss struct {
		Scopes []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"address_scopes"`
	}
	neutronCall(t, http.MethodGet, base+"/v2.0/address-scopes", nil, &ss)
	for _, s := range ss.Scopes {
		if s.Name == "a11 (ipsync_owner=static:deploy)" {
			urls = append(urls, base+"/v2.0/address-scopes/"+s.ID)
		}
	}
	for _, u := range urls {
		if err := deleteUntilGone(u); err != nil {
			t.Error(err)
		}
	}
}
