package neutron

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"
)

// leakCases are testdata/leaks.json: one routed network, segments on two
// leaf pairs (created days before the read), and per case its ports and
// what the leak rule must name.
type leakCases struct {
	Base  Snapshot
	Cases []struct {
		Name           string
		ReadAt         *string `json:"readAt"`
		Grace          string
		SegmentCreated map[string]time.Time `json:"segmentCreated"`
		Ports          []Port
		Leaked         []string
	}
}

func TestLeakedSegmentsPerPhysnet(t *testing.T) {
	raw, err := os.ReadFile("testdata/leaks.json")
	if err != nil {
		t.Fatal(err)
	}
	var lc leakCases
	if err := json.Unmarshal(raw, &lc); err != nil {
		t.Fatal(err)
	}
	for _, tt := range lc.Cases {
		t.Run(tt.Name, func(t *testing.T) {
			s := lc.Base
			s.Segments = slices.Clone(s.Segments)
			for i, sg := range s.Segments {
				if at, ok := tt.SegmentCreated[sg.ID]; ok {
					s.Segments[i].CreatedAt = at
				}
			}
			s.Ports = tt.Ports
			if tt.ReadAt != nil {
				s.ReadAt = time.Time{}
				if *tt.ReadAt != "" {
					if s.ReadAt, err = time.Parse(time.RFC3339, *tt.ReadAt); err != nil {
						t.Fatal(err)
					}
				}
			}
			cfg := MapConfig{Site: site}
			if tt.Grace != "" {
				if cfg.LeakGrace, err = time.ParseDuration(tt.Grace); err != nil {
					t.Fatal(err)
				}
			}
			_, report := Map(&s, cfg)
			got := []string{}
			for _, u := range report.UnusedSegments {
				got = append(got, u.SegmentID)
			}
			if !slices.Equal(got, tt.Leaked) {
				t.Errorf("leaked segments = %v, want %v", got, tt.Leaked)
			}
		})
	}
}

func TestUnheldAllocations(t *testing.T) {
	tests := []struct {
		name   string
		ranges []SegmentRange
		want   []UnheldAllocation
	}{
		{name: "ranges not read or all held: nothing",
			ranges: []SegmentRange{{ID: "r-1", NetworkType: "vlan", PhysicalNetwork: "g"}, {ID: "r-2", NetworkType: "vxlan", Unheld: []int{}}}},
		{name: "each range's unheld ids, by range id",
			ranges: []SegmentRange{
				{ID: "r-2", Name: "vni", NetworkType: "vxlan", Minimum: 1, Maximum: 1000, Unheld: []int{7}},
				{ID: "r-1", Name: "leaf12", NetworkType: "vlan", PhysicalNetwork: "a11-12-network", Minimum: 150, Maximum: 199, Unheld: []int{151, 160}},
			},
			want: []UnheldAllocation{
				{RangeID: "r-1", RangeName: "leaf12", NetworkType: "vlan", PhysicalNetwork: "a11-12-network", SegmentationIDs: []int{151, 160}},
				{RangeID: "r-2", RangeName: "vni", NetworkType: "vxlan", SegmentationIDs: []int{7}},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, report := Map(&Snapshot{Ranges: tt.ranges}, MapConfig{Site: site})
			if !reflect.DeepEqual(report.UnheldAllocations, tt.want) {
				t.Errorf("unheld allocations = %+v, want %+v", report.UnheldAllocations, tt.want)
			}
		})
	}
}
