package neutron

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/ipsync/ipsync/internal/resource"
)

// vlanNames are the names Map gives the VLANs of s, by key.
func vlanNames(s *Snapshot) map[string]string {
	objs, _ := Map(s, MapConfig{Site: site})
	out := map[string]string{}
	for _, o := range objs {
		if v, ok := o.(*resource.VLAN); ok {
			out[v.Key().Name] = v.Name
		}
	}
	return out
}

func TestVLANNamesUniqueInGroup(t *testing.T) {
	tests := []struct {
		name string
		snap *Snapshot
	}{
		{"networks named alike in every project", &Snapshot{Networks: []Network{
			vlanNet("0d2c51e7-aaaa", "private", "g", 101), vlanNet("7f3e9a10-bbbb", "private", "g", 102), vlanNet("c0ffee00-cccc", "default", "g", 103)}}},
		{"ids alike in their first characters", &Snapshot{Networks: []Network{
			vlanNet("0d2c51e7-aaaa", "private", "g", 101), vlanNet("0d2c51e7-bbbb", "private", "g", 102)}}},
		{"routed networks named alike", &Snapshot{Networks: []Network{
			{ID: "n-1", Name: "prov", Segments: []Segment{{ID: "s-1", NetworkType: "vlan", PhysicalNetwork: "g", SegmentationID: 101}}},
			{ID: "n-2", Name: "prov", Segments: []Segment{{ID: "s-2", NetworkType: "vlan", PhysicalNetwork: "g", SegmentationID: 102}}},
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			names := vlanNames(tt.snap)
			seen := map[string]string{}
			for key, name := range names {
				group := key[:len("g")]
				if other, ok := seen[group+"/"+name]; ok {
					t.Errorf("VLANs %s and %s are both named %q in group %s", other, key, name, group)
				}
				seen[group+"/"+name] = key
			}
			if len(names) != len(tt.snap.Networks) {
				t.Errorf("Map made %d VLANs (%v), want %d", len(names), names, len(tt.snap.Networks))
			}
		})
	}
}

// A VLAN keeps its name when the site grows: a segment added to its routed
// network, or a new network with the same name on the same physnet.
func TestVLANNamesStable(t *testing.T) {
	seg := func(id, physnet string, vid int) Segment {
		return Segment{ID: id, NetworkID: "n-r", NetworkType: "vlan", PhysicalNetwork: physnet, SegmentationID: vid}
	}
	before := &Snapshot{Networks: []Network{{ID: "n-r", Name: "prov"}, vlanNet("n-5", "private", "g", 150)},
		Segments: []Segment{seg("s-12", "a11-12-network", 110)}}
	after := &Snapshot{Networks: []Network{{ID: "n-r", Name: "prov"}, vlanNet("n-5", "private", "g", 150), vlanNet("n-1", "private", "g", 151)},
		Segments: []Segment{seg("s-12", "a11-12-network", 110), seg("s-13", "a11-13-network", 210)}}
	was, now := vlanNames(before), vlanNames(after)
	for _, key := range slices.Sorted(maps.Keys(was)) {
		if now[key] != was[key] {
			t.Errorf("VLAN %s renamed from %q to %q when the site grew", key, was[key], now[key])
		}
	}
	if len(now) != 4 {
		t.Errorf("VLANs after = %v, want 4", now)
	}
}

// The footprint of a network is computed over the whole site.
func TestFootprint(t *testing.T) {
	s := &Snapshot{
		Networks: []Network{vlanNet("n-1", "red", "g", 101), vlanNet("n-2", "red", "g", 102)},
		Subnets:  []Subnet{{ID: "sn-1", NetworkID: "n-1", CIDR: "10.0.0.0/24"}, {ID: "sn-2", NetworkID: "n-2", CIDR: "10.0.0.0/24"}},
		Ports:    []Port{port("p-1", "", "n-1", fip("sn-1", "10.0.0.5")), port("p-2", "", "n-2", fip("sn-2", "10.0.0.5"))},
	}
	tests := []struct {
		name string
		cfg  MapConfig
		want []resource.Key
	}{
		// With a namespace per network, n-1's namespace depends on n-2's
		// name being taken: n-1 is in n-2's footprint.
		{"namespace per network", MapConfig{Site: site, NamespacePerNetwork: true}, []resource.Key{
			{Kind: resource.KindNamespace, Name: "a11/n-1"}, {Kind: resource.KindVLAN, Name: "g/101"},
			{Kind: resource.KindPrefix, Name: "a11/n-1/10.0.0.0/24"}, {Kind: resource.KindIPAddress, Name: "a11/n-1/10.0.0.5"},
			{Kind: resource.KindNamespace, Name: "a11/n-2"}, {Kind: resource.KindVLAN, Name: "g/102"},
			{Kind: resource.KindPrefix, Name: "a11/n-2/10.0.0.0/24"}, {Kind: resource.KindIPAddress, Name: "a11/n-2/10.0.0.5"}}},
		// n-2's prefix and IP are dropped as duplicates of n-1's, but n-2
		// still accounts for them.
		{"one namespace", MapConfig{Site: site}, []resource.Key{
			{Kind: resource.KindVLAN, Name: "g/102"}, {Kind: resource.KindPrefix, Name: "a11/10.0.0.0/24"}, {Kind: resource.KindIPAddress, Name: "a11/10.0.0.5"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fp := Footprint(tt.cfg, []string{"n-2"}, s)
			var got []string
			for id := range fp {
				got = append(got, fmt.Sprint(id))
			}
			var want []string
			objs, _ := Map(s, tt.cfg)
			for _, o := range objs {
				if slices.Contains(tt.want, o.Key()) {
					want = append(want, fmt.Sprint(o.Identity()))
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if len(want) != len(tt.want) || !slices.Equal(got, want) {
				t.Errorf("Footprint(n-2) = %q, want %q (keys %v)", got, want, tt.want)
			}
		})
	}
}
