package nautobot

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/benchdata"
	"github.com/ipsync/ipsync/internal/nautobot/emulator"
	"github.com/ipsync/ipsync/internal/nautobot/emulator/emulatortest"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sot"
)

// bulkSet is 100k objects the way sites have them: 2% VLANs, 10%
// prefixes (each on a VLAN created in the same run), 88% IP addresses,
// plus the 10 namespaces and 20 VLAN groups they live in.
func bulkSet() []resource.Object { return benchdata.Site(10_000, "", owner) }

// BenchmarkApplyCreate100k creates 100k objects through Apply against the
// emulator, then lists them back. Bytes and time include the emulator,
// which runs in the same process.
func BenchmarkApplyCreate100k(b *testing.B) {
	objs := bulkSet()
	changes := creates(objs...)
	ctx := context.Background()
	b.ReportAllocs()
	var writes, reads, listed int
	var applyTime, listTime time.Duration
	for b.Loop() {
		b.StopTimer()
		srv := emulatortest.NewServer()
		c, err := New(Config{Settings: sot.Settings{URL: srv.URL(), Token: emulator.DefaultToken}}, slog.New(slog.DiscardHandler), sot.WithHTTPClient(srv.Client()))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Bootstrap(ctx); err != nil {
			b.Fatal(err)
		}
		srv.ResetCounts()
		b.StartTimer()

		start := time.Now()
		res, err := c.Apply(ctx, changes)
		if err != nil {
			b.Fatal(err)
		}
		applied := time.Now()
		before := srv.Requests("GET", "/api/")
		got, err := c.List(ctx, scope.Scope{})
		if err != nil {
			b.Fatal(err)
		}
		applyTime, listTime = applied.Sub(start), time.Since(applied)

		b.StopTimer()
		writes, reads, listed = res.Writes, srv.Requests("GET", "/api/")-before, len(got)
		if res.Written != len(objs) {
			b.Fatalf("wrote %d objects, want %d", res.Written, len(objs))
		}
		if p := plan.Make(objs, got, plan.DefaultPolicy(owner)); len(p.Changes) != 0 {
			b.Fatalf("plan after apply has %d changes", len(p.Changes))
		}
		srv.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(writes), "writes/op")
	b.ReportMetric(float64(reads), "list-reads/op")
	b.ReportMetric(float64(listed), "objects/op")
	b.ReportMetric(applyTime.Seconds(), "apply-s/op")
	b.ReportMetric(listTime.Seconds(), "list-s/op")
}
