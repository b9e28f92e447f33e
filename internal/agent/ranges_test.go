package agent_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/agent"
	"github.com/ipsync/ipsync/internal/rangehealth"
)

// TestRangeHealth runs full syncs 12 minutes apart on a range that takes
// an id each: the gauges follow the count, the forecast appears once the
// history spans an hour, a narrowed sync (no count) leaves them, and a
// range that went drops out. The page shows the ranges over the threshold.
func TestRangeHealth(t *testing.T) {
	clock := newFakeClock()
	h := start(t, clock, newTable(clock), "agent-1")
	vni := func(used int) []rangehealth.Usage {
		return []rangehealth.Usage{{Kind: "vlan", Range: "leaf12", Size: 100, Used: used}, {Kind: "vxlan", Range: "tenant-vni", Size: 1000, Used: 10}}
	}
	leaf := map[string]string{"site": site, "kind": "vlan", "range": "leaf12"}
	for i := range 6 {
		h.next().answer(agent.Outcome{Ranges: vni(80 + i)}, nil)
		h.syncs(i + 1)
		full, ok := metric(t, h.reg, "ipsync_range_full_seconds", leaf)
		// 12 minutes apart: the history spans an hour at the sixth.
		if want := i == 5; ok != want {
			t.Errorf("sync %d: forecast shown %v, want %v", i, ok, want)
		}
		if ok && full != 3*3600 { // 15 free at 5 an hour
			t.Errorf("sync %d: ipsync_range_full_seconds = %v, want 3h", i, full)
		}
		clock.Advance(12 * time.Minute)
	}
	h.send(agent.Trigger{NetworkIDs: []string{"net-1"}, Events: 1})
	h.next().answer(agent.Outcome{}, nil)
	h.syncs(7)
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"ipsync_range_used_ratio", leaf, 0.85},
		{"ipsync_range_ids", map[string]string{"site": site, "kind": "vlan", "range": "leaf12", "state": "used"}, 85},
		{"ipsync_range_ids", map[string]string{"site": site, "kind": "vlan", "range": "leaf12", "state": "free"}, 15},
		{"ipsync_range_used_ratio", map[string]string{"site": site, "kind": "vxlan", "range": "tenant-vni"}, 0.01},
	} {
		if got, _ := metric(t, h.reg, tc.name, tc.labels); got != tc.want {
			t.Errorf("%s%v = %v, want %v", tc.name, tc.labels, got, tc.want)
		}
	}
	if _, ok := metric(t, h.reg, "ipsync_range_full_seconds", map[string]string{"site": site, "kind": "vxlan", "range": "tenant-vni"}); ok {
		t.Errorf("a range that does not fill has a forecast")
	}
	_, page := h.get("/")
	for _, want := range []string{"Ranges used 80% or more", "<code>leaf12</code>", "85 (85%)", "in 3 hours"} {
		if !strings.Contains(page, want) {
			t.Errorf("status page lacks %q", want)
		}
	}
	if strings.Contains(page, "tenant-vni") {
		t.Errorf("status page shows a range under the threshold")
	}

	clock.Advance(12 * time.Minute)
	h.next().answer(agent.Outcome{Ranges: vni(85)[1:]}, nil)
	h.syncs(8)
	if _, ok := metric(t, h.reg, "ipsync_range_used_ratio", leaf); ok {
		t.Errorf("a range gone from the count keeps its gauge")
	}
}
