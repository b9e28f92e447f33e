package reconcile

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/memory"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// TestSavedPlanAppliedBefore: a saved plan applied once and applied
// again finds its writes done; they are settled as noops, not refused as
// "created by someone else". A write someone else did differently still
// refuses the plan, naming that object alone.
func TestSavedPlanAppliedBefore(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name        string
		meddle      func(store *memory.Store)
		wantApplied int
		wantRefusal string // "" for none
	}{
		{name: "applied as saved", meddle: func(*memory.Store) {}, wantApplied: len(desired())},
		{name: "one object created differently by someone else", meddle: func(store *memory.Store) {
			objs, _ := store.List(ctx)
			for _, o := range objs {
				if v, ok := o.(*resource.VLAN); ok {
					v.Name = "by-hand"
					store.Put(v)
				}
			}
		}, wantApplied: len(desired()) - 1, wantRefusal: "(1 object moved)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := memory.New()
			made, err := Plan(ctx, desired(), Stateless(store), plan.DefaultPolicy(owner))
			if err != nil {
				t.Fatal(err)
			}
			saved := roundTrip(t, made.Plan)
			if _, err := made.Apply(ctx); err != nil {
				t.Fatal(err)
			}
			tt.meddle(store)
			again, err := Saved(ctx, saved, Stateless(store))
			if err != nil {
				t.Fatal(err)
			}
			if again.Applied != tt.wantApplied {
				t.Errorf("Applied = %d, want %d", again.Applied, tt.wantApplied)
			}
			refusals := strings.Join(again.Plan.Refusals, "\n")
			switch {
			case tt.wantRefusal == "" && refusals != "":
				t.Errorf("refused: %s", refusals)
			case tt.wantRefusal != "" && !strings.Contains(refusals, tt.wantRefusal):
				t.Errorf("refusals %q lack %q", refusals, tt.wantRefusal)
			}
			if tt.wantRefusal == "" {
				if n, err := again.Apply(ctx); err != nil || n != 0 {
					t.Errorf("Apply of a plan applied before = %d, %v; want nothing written", n, err)
				}
				if got := again.Plan.Summary.Total(plan.Noop); got != tt.wantApplied {
					t.Errorf("%d noops in the summary, want %d", got, tt.wantApplied)
				}
			}
		})
	}
}

// roundTrip is p as saved to a file and read back.
func roundTrip(t *testing.T, p *plan.Plan) *plan.Plan {
	t.Helper()
	var b strings.Builder
	if err := p.WriteJSON(&b, "test"); err != nil {
		t.Fatal(err)
	}
	out, _, err := plan.ReadJSON(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// lowering stores DNS names in lower case, as Nautobot 3.x and NetBox do.
type lowering struct{ *memory.Store }

func (l lowering) Read(ctx context.Context) (State, error) {
	st, err := Stateless(l.Store).Read(ctx)
	return loweringState{st}, err
}

type loweringState struct{ State }

func (loweringState) AsStored(o resource.Object) resource.Object { return resource.LowerDNSName(o) }

// TestDesiredAsStoredLeavesTheCallersObjects: the plan compares the
// desired objects as the target stores them, and the caller's slice,
// planned again at the next poll, keeps what it held.
func TestDesiredAsStoredLeavesTheCallersObjects(t *testing.T) {
	ip := &resource.IPAddress{M: resource.Meta{Owner: owner}, Namespace: "a11", Address: netip.MustParsePrefix("10.0.0.1/24"), Status: "Active", DNSName: "GW.Example.NET"}
	desired := []resource.Object{ip}
	r, err := Plan(context.Background(), desired, lowering{memory.New()}, plan.DefaultPolicy(owner))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Plan.Changes) != 1 || r.Plan.Changes[0].Desired.(*resource.IPAddress).DNSName != "gw.example.net" {
		t.Errorf("planned %v, want the create of gw.example.net", r.Plan.Changes)
	}
	if desired[0] != ip || ip.DNSName != "GW.Example.NET" {
		t.Errorf("the caller's objects changed: %v, %q", desired[0], ip.DNSName)
	}
}
