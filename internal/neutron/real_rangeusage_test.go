package neutron

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
)

// TestRealRangeUsage proves the count from segments against Neutron's own
// accounting: on a real Neutron with a VLAN range of this run's, filled
// 7 of 10 with provider networks, and whatever else the server holds,
// every range's used count is its size less the ids Neutron lists as
// available in it.
func TestRealRangeUsage(t *testing.T) {
	base := realNeutron(t)
	a := newAdmin(t, base)
	run := newRunID()
	first := 3000 + run.octet*4
	rg := a.create("network_segment_ranges", map[string]any{"name": run.name + "-usage", "network_type": "vlan",
		"physical_network": "a11-13-network", "minimum": first, "maximum": first + 9, "shared": true})
	for vid := first; vid < first+7; vid++ {
		a.create("networks", map[string]any{"name": fmt.Sprintf("%s-%d", run.name, vid),
			"provider:network_type": "vlan", "provider:physical_network": "a11-13-network", "provider:segmentation_id": vid})
	}

	ctx := context.Background()
	r := readerOf(t, base)
	snap, err := r.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]int{}
	for _, u := range RangeUsage(snap) {
		used[u.Range] = u.Used
	}
	if got := used[run.name+"-usage"]; got != 7 {
		t.Errorf("range %s: %d used, want 7 of 10", str(rg, "id"), got)
	}
	for _, sr := range snap.Ranges {
		if sr.Maximum-sr.Minimum >= maxAllocationScan {
			continue
		}
		var body struct {
			Range struct {
				Available []int `json:"available"`
			} `json:"network_segment_range"`
		}
		a.call(http.MethodGet, "/network_segment_ranges/"+sr.ID+"?"+url.Values{"fields": {"available"}}.Encode(), nil, &body)
		want := sr.Maximum - sr.Minimum + 1 - len(body.Range.Available)
		if got := used[rangeLabel(sr)]; got != want {
			t.Errorf("range %s (%s): %d used from the segments, Neutron lists %d of %d available: want %d", rangeLabel(sr), sr.ID, got, len(body.Range.Available), sr.Maximum-sr.Minimum+1, want)
		}
	}
}
