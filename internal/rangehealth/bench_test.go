package rangehealth

import (
	"fmt"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/benchdata"
	"github.com/ipsync/ipsync/internal/resource"
)

// BenchmarkFromGroups counts the VLAN groups of a target's site of about
// 100,000 objects (20 groups of 100 VLANs, 10,000 prefixes, 88,000 IP
// addresses), each group with a range, per sync of the whole site.
func BenchmarkFromGroups(b *testing.B) {
	objs := benchdata.Site(10000, "", "neutron:bench")
	for _, o := range objs {
		if g, ok := o.(*resource.VLANGroup); ok {
			g.Range = resource.VIDRanges{{Lo: 100, Hi: 299}}
		}
	}
	b.Run(fmt.Sprintf("objects=%d", len(objs)), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			FromGroups(objs)
		}
	})
}

// BenchmarkRecord adds a sync's counts of 40 ranges to histories a week
// full (673 samples each) and computes their rates and forecasts.
func BenchmarkRecord(b *testing.B) {
	us := make([]Usage, 40)
	for i := range us {
		us[i] = Usage{Kind: "vlan", Range: fmt.Sprintf("range-%02d", i), Size: 1000, Used: 500}
	}
	h := NewHistory()
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for ; at.Before(time.Date(2026, 12, 8, 0, 0, 0, 0, time.UTC)); at = at.Add(10 * time.Minute) {
		h.Record(at, us)
	}
	b.Run("ranges=40/samples=673", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			at = at.Add(10 * time.Minute)
			h.Record(at, us)
		}
	})
}
