package neutron

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// BenchmarkReadSite reads a site-sized Neutron (scripts/neutron-bench-setup.sh:
// 2,000 networks, 4,000 subnets, 20,000 ports) and maps it.
func BenchmarkReadSite(b *testing.B) {
	if os.Getenv("IPSYNC_NEUTRON_BENCH") != "1" {
		b.Skip("set IPSYNC_NEUTRON_BENCH=1 and IPSYNC_NEUTRON_URL (a server filled by scripts/neutron-bench-setup.sh) to run")
	}
	base := realNeutron(b)
	ctx := context.Background()
	var snap *Snapshot
	for _, conc := range []int{1, DefaultConcurrency} {
		b.Run(fmt.Sprintf("read/concurrency=%d", conc), func(b *testing.B) {
			r, err := NewReader(ctx, Config{Endpoint: base, Auth: AuthNoauth, Concurrency: conc}, discard())
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if snap, err = r.Read(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(r.Requests())/float64(b.N), "requests/op")
			b.ReportMetric(float64(len(snap.Networks)), "networks")
			b.ReportMetric(float64(len(snap.Subnets)), "subnets")
			b.ReportMetric(float64(len(snap.Ports)), "ports")
		})
	}
	if snap == nil {
		return
	}
	b.Run("map", func(b *testing.B) {
		var n int
		var report Report
		for b.Loop() {
			objs, rep := Map(snap, MapConfig{Site: "bench"})
			n, report = len(objs), rep
		}
		b.ReportMetric(float64(n), "objects")
		b.ReportMetric(float64(len(report.Duplicates)+len(report.Skipped)), "problems")
	})
}
