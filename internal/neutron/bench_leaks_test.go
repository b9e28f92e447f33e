package neutron

import (
	"fmt"
	"testing"
	"time"
)

// bindingSite is the BENCHMARKS.md Neutron site (2,000 networks, every
// fourth VXLAN, 5 subnets and 9 ports per subnet: 10,000 subnets, 90,000
// ports) with what the leak rule reads: segment records with their
// creation time, and bare-metal ports bound on the physical network of
// their node, every tenth one unbound.
func bindingSite(networks int) *Snapshot {
	physnets := []string{"a11-12-network", "a11-13-network", "b22-1-network"}
	readAt := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	s := &Snapshot{ReadAt: readAt}
	for n := range networks {
		id := fmt.Sprintf("net-%05d", n)
		sg := Segment{ID: "seg-" + id, NetworkID: id, NetworkType: "vlan", PhysicalNetwork: physnets[n%3], SegmentationID: 2 + n/3,
			CreatedAt: readAt.Add(-48 * time.Hour)}
		if n%4 == 3 {
			sg.NetworkType, sg.PhysicalNetwork, sg.SegmentationID = "vxlan", "", 1+n
		}
		s.Networks = append(s.Networks, Network{ID: id, Name: "bench-" + id, ProjectID: "p1",
			Segments: []Segment{{NetworkID: id, NetworkType: sg.NetworkType, PhysicalNetwork: sg.PhysicalNetwork, SegmentationID: sg.SegmentationID}}})
		s.Segments = append(s.Segments, sg)
		for sub := range 5 {
			third := n*5 + sub
			sid := fmt.Sprintf("%s-sub%d", id, sub)
			s.Subnets = append(s.Subnets, Subnet{ID: sid, Name: sid, NetworkID: id, CIDR: fmt.Sprintf("10.%d.%d.0/24", third/256, third%256), ProjectID: "p1"})
			for p := range 9 {
				port := Port{ID: fmt.Sprintf("%s-p%d", sid, p), NetworkID: id, HostID: fmt.Sprintf("node-%d", (n*45+sub*9+p)%1000),
					VIFType: "other", Physnets: []string{physnets[n%3]}, UpdatedAt: readAt.Add(-24 * time.Hour),
					FixedIPs: []FixedIP{{SubnetID: sid, IPAddress: fmt.Sprintf("10.%d.%d.%d", third/256, third%256, 10+p)}}}
				if p == 0 && sub%2 == 0 {
					port.VIFType, port.Physnets, port.HostID = VIFUnbound, nil, ""
				}
				s.Ports = append(s.Ports, port)
			}
		}
	}
	return s
}

// BenchmarkLeaks is the leak rule alone over the 90,000-port site (the
// mapper's networks and subnets built once, as Map builds them before),
// and the whole Map it is part of, per sync that maps.
func BenchmarkLeaks(b *testing.B) {
	site := bindingSite(2000)
	cfg := MapConfig{Site: "bench"}
	b.Run(fmt.Sprintf("leaks/networks=%d/ports=%d", len(site.Networks), len(site.Ports)), func(b *testing.B) {
		m := newMapper(site, cfg)
		b.ReportAllocs()
		for b.Loop() {
			m.report.UnusedSegments, m.report.UnheldAllocations = nil, nil
			m.findLeaks(site)
		}
		b.ReportMetric(float64(len(m.report.UnusedSegments)), "leaked")
	})
	b.Run(fmt.Sprintf("map/networks=%d/ports=%d", len(site.Networks), len(site.Ports)), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Map(site, cfg)
		}
	})
}
