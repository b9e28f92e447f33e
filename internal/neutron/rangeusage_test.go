package neutron

import (
	"slices"
	"testing"

	"github.com/ipsync/ipsync/internal/rangehealth"
)

func TestRangeUsage(t *testing.T) {
	vlan := func(phys string, id int) Segment {
		return Segment{ID: phys + string(rune('a'+id%26)), NetworkType: "vlan", PhysicalNetwork: phys, SegmentationID: id}
	}
	for _, tc := range []struct {
		name string
		snap Snapshot
		want []rangehealth.Usage
	}{
		{name: "no ranges extension", snap: Snapshot{Segments: []Segment{vlan("physnet1", 100)}}},
		{
			name: "segments per physnet and type, unheld ids, bounds inclusive",
			snap: Snapshot{
				Segments: []Segment{vlan("physnet1", 100), vlan("physnet1", 110), vlan("physnet1", 200), vlan("physnet1", 201),
					vlan("physnet2", 105), {NetworkType: "vxlan", SegmentationID: 7}, {NetworkType: "flat", PhysicalNetwork: "physnet1"}},
				Ranges: []SegmentRange{
					{ID: "r1", Default: true, NetworkType: "vlan", PhysicalNetwork: "physnet1", Minimum: 100, Maximum: 200, Unheld: []int{150}},
					{ID: "r2", Name: "tenant-vni", NetworkType: "vxlan", Minimum: 1, Maximum: 1000},
					{ID: "r3", Name: "small", NetworkType: "vlan", PhysicalNetwork: "physnet2", Minimum: 105, Maximum: 105},
				},
			},
			want: []rangehealth.Usage{
				{Kind: "vlan", Range: "physnet1:100-200", Size: 101, Used: 4},
				{Kind: "vlan", Range: "small", Size: 1, Used: 1},
				{Kind: "vxlan", Range: "tenant-vni", Size: 1000, Used: 1},
			},
		},
		{
			name: "provider attributes without the segments extension; names alike get their ids",
			snap: Snapshot{
				Networks: []Network{{ID: "n1", Segments: []Segment{{NetworkType: "vxlan", SegmentationID: 5}}}, {ID: "n2", Segments: []Segment{{NetworkType: "vxlan", SegmentationID: 5}}}},
				Ranges: []SegmentRange{
					{ID: "a", Name: "vni", NetworkType: "vxlan", Minimum: 1, Maximum: 10},
					{ID: "b", Name: "vni", NetworkType: "vxlan", Minimum: 11, Maximum: 20},
				},
			},
			want: []rangehealth.Usage{{Kind: "vxlan", Range: "vni a", Size: 10, Used: 1}, {Kind: "vxlan", Range: "vni b", Size: 10, Used: 0}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RangeUsage(&tc.snap); !slices.Equal(got, tc.want) {
				t.Errorf("RangeUsage = %+v, want %+v", got, tc.want)
			}
		})
	}
}
