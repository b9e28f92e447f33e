package neutron

import (
	"fmt"
	"testing"
)

// BenchmarkRangeUsage counts the ranges of the 90,000-port site of
// BenchmarkLeaks, per sync of the whole site: ML2's default ranges (a
// VLAN range per physical network, a VNI range of a million ids) and 16
// small ranges of their own.
func BenchmarkRangeUsage(b *testing.B) {
	site := bindingSite(2000)
	for _, p := range []string{"a11-12-network", "a11-13-network", "b22-1-network"} {
		site.Ranges = append(site.Ranges, SegmentRange{ID: "default-" + p, Default: true, NetworkType: "vlan", PhysicalNetwork: p, Minimum: 1, Maximum: 1000})
	}
	site.Ranges = append(site.Ranges, SegmentRange{ID: "default-vxlan", Default: true, NetworkType: "vxlan", Minimum: 1, Maximum: 1 << 20})
	for i := range 16 {
		site.Ranges = append(site.Ranges, SegmentRange{ID: fmt.Sprintf("r%d", i), Name: fmt.Sprintf("tenant-%d", i), NetworkType: "vlan",
			PhysicalNetwork: "a11-12-network", Minimum: 1001 + 10*i, Maximum: 1010 + 10*i})
	}
	b.Run(fmt.Sprintf("networks=%d/segments=%d/ranges=%d", len(site.Networks), len(site.Segments), len(site.Ranges)), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			RangeUsage(site)
		}
	})
}
