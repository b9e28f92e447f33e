package rangehealth

import (
	"slices"
	"testing"

	"github.com/ipsync/ipsync/internal/resource"
)

func TestFromGroups(t *testing.T) {
	rng := func(s string) resource.VIDRanges {
		r, err := resource.ParseVIDRanges(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	objs := []resource.Object{
		&resource.VLANGroup{Name: "a11-12-network", Range: rng("100-109,200-209")},
		&resource.VLANGroup{Name: "no-range"},
		&resource.VLANGroup{Name: "empty", Range: rng("1-4")},
		&resource.VLAN{Group: "a11-12-network", VID: 100, M: resource.Meta{Owner: "neutron:a11"}},
		&resource.VLAN{Group: "a11-12-network", VID: 209},
		&resource.VLAN{Group: "a11-12-network", VID: 150}, // outside the range: the plan refuses it, it takes nothing
		&resource.VLAN{Group: "no-range", VID: 5},
	}
	want := []Usage{{Kind: KindVLANGroup, Range: "a11-12-network", Size: 20, Used: 2}, {Kind: KindVLANGroup, Range: "empty", Size: 4}}
	if got := FromGroups(objs); !slices.Equal(got, want) {
		t.Errorf("FromGroups = %+v, want %+v", got, want)
	}
}
