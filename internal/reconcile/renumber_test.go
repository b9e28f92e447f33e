package reconcile

import (
	"context"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/memory"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// renumbered is desired() with the VLAN, and the prefix using it, moved
// from vid 100 to vid 150.
func renumbered() []resource.Object {
	d := desired()
	d[2].(*resource.VLAN).VID = 150
	d[3].(*resource.Prefix).VLAN = "a11-12-network/150"
	return d
}

func vlanOf(t *testing.T, store *memory.Store) *resource.VLAN {
	t.Helper()
	objs, _ := store.List(context.Background())
	var found *resource.VLAN
	for _, o := range objs {
		if v, ok := o.(*resource.VLAN); ok {
			if found != nil {
				t.Fatalf("the store holds VLANs %s and %s, want one", found.Key(), v.Key())
			}
			found = v
		}
	}
	if found == nil {
		t.Fatal("the store holds no VLAN")
	}
	return found
}

// TestRenumberAppliesInPlace: a VLAN renumbered under its name is one
// write to the VLAN the target has, and a saved plan of it is neither
// stale nor refused.
func TestRenumberAppliesInPlace(t *testing.T) {
	ctx := context.Background()
	store := memory.New()
	r, _ := Plan(ctx, desired(), Stateless(store), plan.DefaultPolicy(owner))
	if _, err := r.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	before := vlanOf(t, store)

	saved, err := Plan(ctx, renumbered(), Stateless(store), plan.DefaultPolicy(owner))
	if err != nil {
		t.Fatal(err)
	}
	again, err := Saved(ctx, saved.Plan, Stateless(store))
	if err != nil {
		t.Fatal(err)
	}
	n, err := again.Apply(ctx)
	if err != nil || n != 1 {
		t.Fatalf("Apply of the renumber = %d, %v; want 1 write", n, err)
	}
	after := vlanOf(t, store)
	if after.VID != 150 || after.M.ID != before.M.ID {
		t.Errorf("VLAN after apply is vid %d with id %s, want vid 150 with the id it had, %s", after.VID, after.M.ID, before.M.ID)
	}
	r, _ = Plan(ctx, renumbered(), Stateless(store), plan.DefaultPolicy(owner))
	if len(r.Plan.Changes) != 0 {
		t.Errorf("plan after the renumber has changes %v, want none", r.Plan.Changes)
	}
}

// TestRenumberedKeyIsGone: a desired object still naming a VLAN by the
// vid it is renumbered away from does not resolve.
func TestRenumberedKeyIsGone(t *testing.T) {
	ctx := context.Background()
	store := memory.New()
	r, _ := Plan(ctx, desired(), Stateless(store), plan.DefaultPolicy(owner))
	if _, err := r.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	d := renumbered()
	d[3].(*resource.Prefix).VLAN = "a11-12-network/100"
	r, err := Plan(ctx, d, Stateless(store), plan.DefaultPolicy(owner))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Problems) != 1 || r.Problems[0].Field != "vlan" || !strings.Contains(r.Problems[0].Message, `"a11-12-network/100" does not exist`) {
		t.Errorf("problems = %v, want the prefix's vlan a11-12-network/100 unresolved", r.Problems)
	}
}

// TestRenumberStale: a saved renumber is stale when its VLAN changed, or
// when the vid it moves to was taken since.
func TestRenumberStale(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		since func(*memory.Store)
		want  string
	}{
		{"the VLAN edited", func(s *memory.Store) {
			s.Put(&resource.VLAN{M: resource.Meta{Owner: owner}, Group: "a11-12-network", VID: 100, Name: "prov", Description: "by hand"})
		}, "a11-12-network/100: changed at"},
		{"the new vid taken", func(s *memory.Store) {
			s.Put(&resource.VLAN{Group: "a11-12-network", VID: 150, Name: "other"})
		}, "a11-12-network/150: created by someone else"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := memory.New()
			r, _ := Plan(ctx, desired(), Stateless(store), plan.DefaultPolicy(owner))
			if _, err := r.Apply(ctx); err != nil {
				t.Fatal(err)
			}
			saved, _ := Plan(ctx, renumbered(), Stateless(store), plan.DefaultPolicy(owner))
			tt.since(store)
			if moved := Stale(saved.Plan, mustList(t, store)); len(moved) != 1 || !strings.Contains(moved[0], tt.want) {
				t.Errorf("Stale() = %q, want one entry containing %q", moved, tt.want)
			}
		})
	}
}

func mustList(t *testing.T, s *memory.Store) []resource.Object {
	t.Helper()
	objs, err := s.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return objs
}
