// Package realpass runs the passes of the benchmarks against real
// servers (Nautobot, NetBox), so that their figures compare.
package realpass

import (
	"context"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/benchdata"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// Counted is a real server behind a proxy that counts its requests.
type Counted interface {
	ResetCounts()
	Requests(method, pathPrefix string) int
}

// Run runs the passes of a benchmark against a real server, in one
// run so that their ratios hold on a noisy machine, and reports each
// one's time, requests and objects per second:
//
//   - raw: raw() writes objects of the same shape by the server's bulk API
//     alone, reading and planning nothing: the server's limit;
//   - create: ipsync's whole apply (read the empty scope, plan, reference
//     and target checks, preflight, bulk writes) of objs, owned by owner;
//   - noop: the same plan again, which writes nothing;
//   - change1pct: 1% of the objects changed, planned and applied.
//
// target gives a fresh client's target for each pass, reading sc: the
// owner and its namespaces and VLAN groups, as a site's scope is.
func Run(b *testing.B, srv Counted, objs []resource.Object, owner resource.Owner, target func(sc scope.Scope) reconcile.Target, raw func() error) {
	ctx := context.Background()
	sc := scope.Scope{Owner: owner}
	for _, o := range objs {
		switch o.Kind() {
		case resource.KindNamespace:
			sc.Namespaces = append(sc.Namespaces, o.Key().Name)
		case resource.KindVLANGroup:
			sc.VLANGroups = append(sc.VLANGroups, o.Key().Name)
		}
	}
	policy := plan.DefaultPolicy(owner)
	policy.MaxDeletePercent = 100
	pass := func(name string, desired []resource.Object, wantWritten int) {
		t := target(sc)
		srv.ResetCounts()
		start := time.Now()
		res, err := reconcile.Plan(ctx, desired, t, policy)
		if err != nil {
			b.Fatalf("%s: plan: %v", name, err)
		}
		if err := res.Preflight(); err != nil {
			b.Fatalf("%s: preflight: %v", name, err)
		}
		planned := time.Since(start)
		n, err := res.Apply(ctx)
		if err != nil {
			b.Fatalf("%s: apply: %v", name, err)
		}
		d := time.Since(start)
		if n != wantWritten {
			b.Fatalf("%s: wrote %d objects, want %d", name, n, wantWritten)
		}
		b.ReportMetric(d.Seconds(), name+"-s")
		b.ReportMetric(planned.Seconds(), name+"-plan-s")
		b.ReportMetric(float64(srv.Requests("", "/api/")), name+"-requests")
		if n > 0 {
			b.ReportMetric(float64(n)/d.Seconds(), name+"-objects/s")
		}
	}
	for b.Loop() {
		srv.ResetCounts()
		start := time.Now()
		if err := raw(); err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		b.ReportMetric(d.Seconds(), "raw-s")
		b.ReportMetric(float64(srv.Requests("", "/api/")), "raw-requests")
		b.ReportMetric(float64(len(objs))/d.Seconds(), "raw-objects/s")

		pass("create", objs, len(objs))
		pass("noop", objs, 0)
		changed := make([]resource.Object, len(objs))
		n := 0
		for i, o := range objs {
			changed[i] = o
			if i%100 != 7 {
				continue
			}
			if c, ok := benchdata.Changed(o); ok {
				changed[i] = c
				n++
			}
		}
		pass("change1pct", changed, n)
	}
	b.ReportMetric(float64(len(objs)), "objects")
}
