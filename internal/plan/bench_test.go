package plan

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/ipsync/ipsync/internal/benchdata"
)

func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			desired, current := benchdata.State(n, me)
			// The collection of the data's garbage would run into the
			// first plans, on the cores they share.
			runtime.GC()
			b.ReportAllocs()
			var p *Plan
			cpu0, ok := cpuTime()
			for b.Loop() {
				p = Make(desired, current, DefaultPolicy(me))
			}
			if cpu1, _ := cpuTime(); ok {
				b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
			}
			if len(p.Refusals) > 0 {
				b.Fatalf("plan refused: %v", p.Refusals)
			}
			b.ReportMetric(float64(len(p.Changes)), "changes")
		})
	}
}
