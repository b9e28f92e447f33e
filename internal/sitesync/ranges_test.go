package sitesync

import (
	"context"
	"slices"
	"testing"

	"github.com/ipsync/ipsync/internal/memory"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/rangehealth"
	"github.com/ipsync/ipsync/internal/resource"
)

// TestSyncRangeUsage: a sync of the whole site counts Neutron's ranges and
// the target's VLAN groups as it read them; a narrowed one, which reads
// part of Neutron, counts nothing and leaves the last count standing.
func TestSyncRangeUsage(t *testing.T) {
	ctx := context.Background()
	owner := resource.NeutronOwner("a11")
	vids, err := resource.ParseVIDRanges("150-159")
	if err != nil {
		t.Fatal(err)
	}
	store := memory.New(&resource.Namespace{Name: "a11"}, &resource.VLANGroup{Name: "a11-12-network", Range: vids})
	snap := snapshot("n1", "n2")
	snap.Ranges = []neutron.SegmentRange{{ID: "r", Name: "leaf12", NetworkType: "vlan", PhysicalNetwork: "a11-12-network", Minimum: 150, Maximum: 153}}
	src := &fakeNeutron{snap: snap}
	s := newTestSyncer(Config{Map: neutron.MapConfig{Site: "a11"}, Policy: plan.DefaultPolicy(owner)}, src, store)

	for _, step := range []struct {
		name string
		req  Request
		want []rangehealth.Usage
	}{
		// The group's VLANs are written by this sync: they count at the next.
		{"sweep", Request{Sweep: true}, []rangehealth.Usage{{Kind: "vlan", Range: "leaf12", Size: 4, Used: 2}, {Kind: rangehealth.KindVLANGroup, Range: "a11-12-network", Size: 10}}},
		{"narrowed", Request{Networks: []string{"n1"}}, nil},
		{"full", Request{Full: true}, []rangehealth.Usage{{Kind: "vlan", Range: "leaf12", Size: 4, Used: 2}, {Kind: rangehealth.KindVLANGroup, Range: "a11-12-network", Size: 10, Used: 2}}},
	} {
		out, err := s.Sync(ctx, step.req)
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if !slices.Equal(out.Ranges, step.want) {
			t.Errorf("%s: ranges %+v, want %+v", step.name, out.Ranges, step.want)
		}
	}
}
