package sitesync

import (
	"reflect"
	"testing"

	"github.com/ipsync/ipsync/internal/drift"
	"github.com/ipsync/ipsync/internal/neutron"
)

func TestUnheldLeaks(t *testing.T) {
	tests := []struct {
		name string
		in   []neutron.UnheldAllocation
		want []drift.Leak
	}{
		{name: "none", in: nil, want: nil},
		{name: "a VLAN range by name, a VNI range without one by id",
			in: []neutron.UnheldAllocation{
				{RangeID: "r-1", RangeName: "leaf13", NetworkType: "vlan", PhysicalNetwork: "a11-13-network", SegmentationIDs: []int{151, 199}},
				{RangeID: "r-2", NetworkType: "vxlan", SegmentationIDs: []int{7}},
			},
			want: []drift.Leak{
				{Kind: "segment_range", Key: "leaf13", Message: "vlan on a11-13-network ids 151, 199 allocated in Neutron but held by no segment (a segment deleted half-way?): lost to the range until freed"},
				{Kind: "segment_range", Key: "r-2", Message: "vxlan ids 7 allocated in Neutron but held by no segment (a segment deleted half-way?): lost to the range until freed"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := unheldLeaks(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("unheldLeaks = %+v, want %+v", got, tt.want)
			}
		})
	}
}
