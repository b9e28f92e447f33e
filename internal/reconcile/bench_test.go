package reconcile_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/ipsync/ipsync/internal/benchdata"
	"github.com/ipsync/ipsync/internal/nautobot"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// owner is the benchmark's owner: a deploy repo's static objects.
const owner = resource.Owner("static:dc")

// preparedTarget answers with objects read beforehand, so that the
// benchmark measures the plan step and not the network. Check is the
// part of the Nautobot target's check that needs no lookups.
type preparedTarget struct {
	current []resource.Object
	names   map[resource.Kind]map[string]bool
}

func (preparedTarget) Server() string { return "the prepared target" }

func (p preparedTarget) Read(context.Context) (reconcile.State, error) { return p, nil }

func (p preparedTarget) Objects() []resource.Object               { return p.current }
func (p preparedTarget) Names() map[resource.Kind]map[string]bool { return p.names }
func (preparedTarget) AsStored(o resource.Object) resource.Object { return o }
func (preparedTarget) Check(c plan.Change, _ *plan.Plan) error {
	if c.Desired == nil {
		return nil
	}
	return nautobot.Supports(c.Desired)
}
func (preparedTarget) Apply(context.Context, []plan.Change) (int, error) {
	return 0, fmt.Errorf("the benchmark target does not write")
}

// benchSite is the planner benchmark's data with the namespace, VLAN
// groups and VLANs its objects refer to, so that every reference resolves
// as on a real site.
func benchSite(n int) (desired []resource.Object, t preparedTarget) {
	desired, current := benchdata.Resolved(n, owner)
	names := map[resource.Kind]map[string]bool{
		resource.RefStatus: {"Active": true},
		resource.RefTenant: {"tenant-x": true},
		resource.RefTag:    {"tenant": true},
	}
	return desired, preparedTarget{current: current, names: names}
}

// BenchmarkPlanStep is the whole plan step as plan and the agent run it:
// read (prepared), plan, references and the target's checks.
func BenchmarkPlanStep(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			want, t := benchSite(n)
			desired := func(context.Context, []resource.Object) ([]resource.Object, error) { return want, nil }
			ctx := context.Background()
			// The collection of the site's garbage would run into the
			// first plans, on the cores they share.
			runtime.GC()
			b.ReportAllocs()
			var r *reconcile.Result
			for b.Loop() {
				var err error
				if r, err = reconcile.Make(ctx, t, desired, plan.DefaultPolicy(owner), scope.Scope{}); err != nil {
					b.Fatal(err)
				}
			}
			if len(r.Plan.Refusals) > 0 {
				b.Fatalf("plan refused: %v", r.Plan.Refusals[:min(3, len(r.Plan.Refusals))])
			}
			b.ReportMetric(float64(len(r.Plan.Changes)), "changes")
		})
	}
}
