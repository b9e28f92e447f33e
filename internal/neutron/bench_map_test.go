package neutron

import (
	"fmt"
	"testing"
)

// siteOf builds a site in memory shaped like the one
// scripts/neutron-bench-setup.sh loads into a real Neutron: per network a
// VLAN segment, two subnets and ten ports.
func siteOf(networks int) *Snapshot {
	s := &Snapshot{}
	for n := range networks {
		id := fmt.Sprintf("net-%06d", n)
		s.Networks = append(s.Networks, Network{ID: id, Name: fmt.Sprintf("tenant-%d", n%500), ProjectID: fmt.Sprintf("p%d", n%50),
			Segments: []Segment{{NetworkType: "vlan", PhysicalNetwork: fmt.Sprintf("physnet-%d", n%4), SegmentationID: 100 + n%3000}}})
		for k := range 2 {
			sid := fmt.Sprintf("sub-%06d-%d", n, k)
			s.Subnets = append(s.Subnets, Subnet{ID: sid, NetworkID: id, CIDR: fmt.Sprintf("10.%d.%d.0/24", n/128, (n%128)*2+k)})
			for p := range 5 {
				s.Ports = append(s.Ports, Port{ID: fmt.Sprintf("port-%06d-%d-%d", n, k, p), NetworkID: id, DeviceOwner: "compute:nova",
					FixedIPs: []FixedIP{{SubnetID: sid, IPAddress: fmt.Sprintf("10.%d.%d.%d", n/128, (n%128)*2+k, 10+p)}}})
			}
		}
	}
	return s
}

// BenchmarkNarrowedMap is the Neutron side of an event-driven sync: the
// whole site mapped again, and the footprint of the one network an event
// named, before and after.
func BenchmarkNarrowedMap(b *testing.B) {
	for _, networks := range []int{200, 2000} {
		site := siteOf(networks)
		cfg := MapConfig{Site: "bench"}
		ids := []string{site.Networks[networks/2].ID}
		b.Run(fmt.Sprintf("networks=%d/ports=%d", networks, len(site.Ports)), func(b *testing.B) {
			b.ReportAllocs()
			var objs, planned int
			for b.Loop() {
				o, _ := Map(site, cfg)
				objs = len(o)
				planned = len(Footprint(cfg, ids, site, site))
			}
			b.ReportMetric(float64(objs), "objects")
			b.ReportMetric(float64(planned), "planned")
		})
	}
}
