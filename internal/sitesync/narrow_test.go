package sitesync

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/memory"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// randomNetwork is a network of a random site: names, address space,
// physical networks and VIDs are drawn from small sets so that sites have
// networks named alike, shared CIDRs and addresses, and duplicate VIDs.
func randomNetwork(r *rand.Rand, id string, s *neutron.Snapshot) {
	names := []string{"private", "default", "blue", ""}
	n := neutron.Network{ID: id, Name: names[r.IntN(len(names))], ProjectID: fmt.Sprintf("p%d", r.IntN(2))}
	physnets := []string{"g1", "g2", "g3"}
	routed := r.IntN(4) == 0
	var segIDs []string
	if routed {
		for i := range 1 + r.IntN(2) {
			sid := fmt.Sprintf("%s-s%d", id, i)
			segIDs = append(segIDs, sid)
			s.Segments = append(s.Segments, neutron.Segment{ID: sid, NetworkID: id, NetworkType: "vlan",
				PhysicalNetwork: physnets[i%len(physnets)], SegmentationID: 100 + r.IntN(4)})
		}
	} else {
		n.Segments = []neutron.Segment{{NetworkType: "vlan", PhysicalNetwork: physnets[r.IntN(len(physnets))], SegmentationID: 100 + r.IntN(4)}}
	}
	s.Networks = append(s.Networks, n)
	cidrs := []string{"10.0.0.0/24", "10.0.1.0/24", "10.0.0.0/24", "10.0.2.0/24"}
	for i := range 1 + r.IntN(2) {
		sub := neutron.Subnet{ID: fmt.Sprintf("%s-sub%d", id, i), NetworkID: id, Name: fmt.Sprintf("%s-%d", id, r.IntN(3)),
			CIDR: cidrs[r.IntN(len(cidrs))], ProjectID: n.ProjectID}
		if routed {
			sub.SegmentID = segIDs[r.IntN(len(segIDs))]
		}
		s.Subnets = append(s.Subnets, sub)
		base := strings.TrimSuffix(sub.CIDR, "0/24")
		for j := range r.IntN(3) {
			s.Ports = append(s.Ports, neutron.Port{ID: fmt.Sprintf("%s-port%d-%d", id, i, j), NetworkID: id, Name: fmt.Sprintf("vm%d", r.IntN(3)),
				FixedIPs: []neutron.FixedIP{{SubnetID: sub.ID, IPAddress: fmt.Sprintf("%s%d", base, 5+r.IntN(3))}}})
		}
	}
}

// randomSite is a site of 2-6 networks.
func randomSite(r *rand.Rand) *neutron.Snapshot {
	s := &neutron.Snapshot{}
	for i := range 2 + r.IntN(5) {
		randomNetwork(r, fmt.Sprintf("n%d", i), s)
	}
	return s
}

// randomEvents changes some networks of s (deleted, re-made, added) and
// names them, with some unchanged ones, as notifications would.
func randomEvents(r *rand.Rand, s *neutron.Snapshot) (*neutron.Snapshot, []string) {
	var ids []string
	next := &neutron.Snapshot{}
	for _, n := range s.Networks {
		switch r.IntN(4) {
		case 0: // deleted
			ids = append(ids, n.ID)
		case 1: // re-made with other subnets, ports and segments
			ids = append(ids, n.ID)
			randomNetwork(r, n.ID, next)
		default: // unchanged, and maybe named anyway
			if r.IntN(3) == 0 {
				ids = append(ids, n.ID)
			}
			keep := only(s, []string{n.ID})
			next.Networks = append(next.Networks, keep.Networks...)
			next.Segments = append(next.Segments, keep.Segments...)
			next.Subnets = append(next.Subnets, keep.Subnets...)
			next.Ports = append(next.Ports, keep.Ports...)
		}
	}
	if r.IntN(2) == 0 {
		id := fmt.Sprintf("n%d", 10+r.IntN(10))
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
			randomNetwork(r, id, next)
		}
	}
	if len(ids) == 0 {
		ids = []string{s.Networks[0].ID}
	}
	return next, ids
}

func ownedKeys(t *testing.T, st *memory.Store, owner resource.Owner) map[resource.Key]bool {
	t.Helper()
	objs, err := st.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[resource.Key]bool{}
	for _, o := range objs {
		if o.Meta().Owner == owner {
			out[o.Key()] = true
		}
	}
	return out
}

// A narrowed sync writes what a full sync of the same Neutron state would
// write for the named networks: a full sync after it finds nothing to do,
// and it never deletes an object the whole mapping still produces.
func TestNarrowedSyncMatchesFull(t *testing.T) {
	const cases = 400
	owner := resource.NeutronOwner("a11")
	for seed := range uint64(cases) {
		r := rand.New(rand.NewPCG(seed, 12))
		perNetwork := r.IntN(2) == 0
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			ctx := context.Background()
			store := memory.New(&resource.Namespace{Name: "a11"},
				&resource.VLANGroup{Name: "g1"}, &resource.VLANGroup{Name: "g2"}, &resource.VLANGroup{Name: "g3"})
			src := &fakeNeutron{snap: randomSite(r)}
			pol := plan.DefaultPolicy(owner)
			pol.AllowMassDelete = true
			mc := neutron.MapConfig{Site: "a11", NamespacePerNetwork: perNetwork}
			s := newTestSyncer(Config{Map: mc, Policy: pol}, src, store)
			if _, err := s.Sync(ctx, Request{}); err != nil {
				t.Fatalf("full sync: %v", err)
			}
			var ids []string
			src.snap, ids = randomEvents(r, src.snap)
			before := ownedKeys(t, store, owner)
			if _, err := s.Sync(ctx, Request{Networks: ids}); err != nil {
				t.Fatalf("narrowed sync of %v: %v", ids, err)
			}
			mc.KnownGroups = map[string]bool{"g1": true, "g2": true, "g3": true}
			whole, _ := neutron.Map(src.snap, mc)
			after := ownedKeys(t, store, owner)
			for _, o := range whole {
				if before[o.Key()] && !after[o.Key()] {
					t.Errorf("narrowed sync of %v deleted %s, which the full mapping still produces", ids, o.Key())
				}
			}
			out, err := s.Sync(ctx, Request{})
			if err != nil {
				t.Fatalf("full sync after narrowed: %v", err)
			}
			if out.Writes != 0 {
				var changes []string
				for _, c := range out.Plan.Changes {
					if c.Action.Writes() {
						changes = append(changes, fmt.Sprintf("%s %s", c.Action, c.Key))
					}
				}
				t.Errorf("full sync after the narrowed sync of %v (namespace per network %v) wrote %d:\n  %s",
					ids, perNetwork, out.Writes, strings.Join(changes, "\n  "))
			}
		})
	}
}
