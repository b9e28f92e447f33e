package sitesync

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/memory"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// scopedStore reads a memory store as the adapters read a site's scope:
// VLANs of the scope's groups, and the owner's wherever they are.
type scopedStore struct {
	*memory.Store
	sc scope.Scope
}

func (s scopedStore) List(ctx context.Context) ([]resource.Object, error) {
	objs, err := s.Store.List(ctx)
	return slices.DeleteFunc(objs, func(o resource.Object) bool {
		v, ok := o.(*resource.VLAN)
		return ok && v.M.Owner != s.sc.Owner && !slices.Contains(s.sc.VLANGroups, v.Group)
	}), err
}

// TestVLANGroupsOfUnlistedPhysnetsAreRead: a VLAN made by hand in the
// group of a physical network that physnet_groups does not list is read
// once Neutron has a segment there, and the plan refuses to create over
// it before any write.
func TestVLANGroupsOfUnlistedPhysnetsAreRead(t *testing.T) {
	ctx := context.Background()
	owner := resource.NeutronOwner("a11")
	store := memory.New(&resource.Namespace{Name: "a11"}, &resource.VLANGroup{Name: "a11-12-network"}, &resource.VLANGroup{Name: "a11-13-network"},
		&resource.VLAN{Group: "a11-13-network", VID: 175, Name: "by-hand", Status: "Active"})
	var scopes [][]string
	rescope := func(sc scope.Scope) any {
		scopes = append(scopes, sc.VLANGroups)
		return scopedStore{store, sc}
	}
	sc := scope.Site(owner, "a11", []string{"a11-12-network"})
	n, sub, ports := network("n1", "routed", 174, "192.168.1.0/24", "192.168.1.10")
	n.Segments = append(n.Segments, neutron.Segment{NetworkType: "vlan", PhysicalNetwork: "a11-13-network", SegmentationID: 175})
	src := &fakeNeutron{snap: &neutron.Snapshot{Networks: []neutron.Network{n}, Subnets: []neutron.Subnet{sub}, Ports: ports}}
	mc := neutron.MapConfig{Site: "a11", Namespace: "a11", PhysnetGroups: map[string]string{"a11-12-network": "a11-12-network"}}
	s := newTestSyncer(Config{Map: mc, Policy: plan.DefaultPolicy(owner), Scope: sc, Rescope: rescopeOf(rescope)}, src, scopedStore{store, sc})

	out, err := s.Sync(ctx, Request{})
	if err == nil || !strings.Contains(err.Error(), "conflict") || out.Writes != 0 || out.Plan == nil {
		t.Fatalf("sync over a VLAN made by hand: %d writes, err %v; want the plan refused, nothing written", out.Writes, err)
	}
	conflict := false
	for _, c := range out.Plan.Changes {
		conflict = conflict || c.Action == plan.Conflict && c.Key.Name == "a11-13-network/175"
	}
	if !conflict {
		t.Errorf("plan %+v has no conflict over vlan a11-13-network/175", out.Plan.Changes)
	}
	if want := [][]string{{"a11-12-network", "a11-13-network"}}; !slices.EqualFunc(scopes, want, slices.Equal) {
		t.Errorf("scopes the target was made for: %q, want %q", scopes, want)
	}
	// The same scope next time: the same target, followed.
	if _, err := s.Sync(ctx, Request{}); err == nil || len(scopes) != 1 {
		t.Errorf("second sync: err %v, %d targets made; want refused again by the same target", err, len(scopes))
	}
}
