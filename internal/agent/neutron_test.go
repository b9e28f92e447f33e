package agent_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/agent"
	"github.com/ipsync/ipsync/internal/drift"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// TestSpecToNeutronPart: the part of a sync that writes the spec's objects
// to the site's Neutron reports on its own, through the spec condition,
// ipsync_neutron_writes_total and the drift of its owner beside the site's;
// whatever stops it (a spec that does not load, a refused plan) fails that
// condition, not the sync, nor readiness, since restarting would not help.
func TestSpecToNeutronPart(t *testing.T) {
	ranges := func(refusals ...string) *plan.Plan {
		p := &plan.Plan{Summary: plan.Summary{resource.KindSegmentRange: {plan.Create: 3}}, Refusals: refusals}
		for range 3 {
			p.Changes = append(p.Changes, plan.Change{Action: plan.Create, Key: resource.Key{Kind: resource.KindSegmentRange}})
		}
		return p
	}
	owner := drift.Owner{Owner: "static:deploy", Target: "neutron:" + site}
	failed := owner
	failed.Error = "spec invalid, nothing was written"
	cases := []struct {
		name        string
		dryRun      bool
		part        agent.NeutronPart
		wantOK      bool
		wantMessage string
		wantWrites  float64
		wantRefused float64
	}{
		{"written", false, agent.NeutronPart{Plan: ranges(), Writes: 3, Drift: owner}, true, "3 objects of the spec written", 3, 0},
		{"dry run", true, agent.NeutronPart{Plan: ranges(), Drift: owner}, true, "dry run: 3 changes", 0, 0},
		{"spec invalid", false, agent.NeutronPart{Err: errors.New(failed.Error), Drift: failed}, false, "spec invalid", 0, 0},
		{"refused", false, agent.NeutronPart{Plan: ranges("conflict"), Err: errors.New("plan refused, nothing was written:\n  conflict"), Drift: owner}, false, "refused", 0, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.DryRun = tc.dryRun
			clock := newFakeClock()
			h := startConfig(t, clock, newTable(clock).Lease("neutron:"+site, "a"), cfg)
			part := tc.part
			h.next().answer(agent.Outcome{Plan: &plan.Plan{}, Neutron: &part}, nil)
			runs := h.runs(1)
			if runs[0].Result != "ok" || runs[0].Writes != int(tc.wantWrites) {
				t.Errorf("run = %s writing %d, want ok writing %v", runs[0].Result, runs[0].Writes, tc.wantWrites)
			}
			c := h.waitCondition(agent.CondSpec, tc.wantOK)
			if !strings.Contains(c.Message, tc.wantMessage) {
				t.Errorf("condition %s = %q, want it to say %q", agent.CondSpec, c.Message, tc.wantMessage)
			}
			for name, want := range map[string]float64{"ipsync_neutron_writes_total": tc.wantWrites, "ipsync_writes_total": 0, "ipsync_plan_refusals": tc.wantRefused} {
				if got, _ := metric(t, h.reg, name, map[string]string{"site": site}); got != want {
					t.Errorf("%s = %v, want %v", name, got, want)
				}
			}
			if code, body := h.get("/readyz"); code != http.StatusOK {
				t.Errorf("/readyz = %d %s, want ready", code, body)
			}
			st := h.agent.Status()
			if st.Drift == nil || len(st.Drift.Owners) != 2 || st.Drift.Owners[1].Name() != "static:deploy (in neutron:a11)" {
				t.Errorf("status drift = %+v, want the site's owner and the spec's in neutron:a11", st.Drift)
			}
		})
	}
}
