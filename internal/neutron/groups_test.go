package neutron

import (
	"slices"
	"testing"
)

func TestGroups(t *testing.T) {
	snap := &Snapshot{
		Networks: []Network{
			{ID: "n1", Segments: []Segment{{NetworkType: "vlan", PhysicalNetwork: "physnet-a", SegmentationID: 10}}},
			{ID: "n2", Segments: []Segment{{NetworkType: "vxlan", SegmentationID: 5000}}},
			{ID: "n3", Segments: []Segment{{NetworkType: "flat", PhysicalNetwork: "physnet-flat"}}},
		},
		Segments: []Segment{{ID: "s1", NetworkID: "n4", NetworkType: "vlan", PhysicalNetwork: "a11-13-network", SegmentationID: 11}},
	}
	tests := []struct {
		name    string
		physnet map[string]string
		want    []string
	}{
		{"named like their physical networks", nil, []string{"a11-13-network", "physnet-a"}},
		{"listed in physnet_groups", map[string]string{"physnet-a": "a11-12-network"}, []string{"a11-12-network", "a11-13-network"}},
	}
	for _, tt := range tests {
		if got := Groups(snap, MapConfig{PhysnetGroups: tt.physnet}); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Groups = %q, want %q", tt.name, got, tt.want)
		}
	}
}
