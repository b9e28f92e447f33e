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

// TestSavedPerObject: for a target that guards each update and delete of a
// saved plan itself, an object edited since the plan does not refuse the
// whole plan (the target refuses that object alone), while a create whose
// key someone took since still does.
func TestSavedPerObject(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name        string
		edit        func(store *memory.Store) // between plan and apply
		want        string                    // a fragment of the refusal, "" for none
		wantChanged string                    // the keys of Result.Changed
	}{
		{"nothing moved", func(*memory.Store) {}, "", ""},
		{"the updated VLAN was edited by hand", func(store *memory.Store) {
			objs, _ := store.List(ctx)
			for _, o := range objs {
				if v, ok := o.(*resource.VLAN); ok {
					v.Description = "edited by hand"
					store.Put(v)
				}
			}
		}, "", "vlan a11-12-network/100"},
		{"the created prefix's key was taken", func(store *memory.Store) {
			store.Put(&resource.Prefix{Namespace: "a11", Prefix: netip.MustParsePrefix("10.0.1.0/24"), Status: "Active"})
		}, "prefix a11/10.0.1.0/24: created by someone else since the plan", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := memory.New()
			r, _ := Plan(ctx, desired(), Stateless(store), plan.DefaultPolicy(owner))
			if _, err := r.Apply(ctx); err != nil {
				t.Fatal(err)
			}
			changed := append(desired(), &resource.Prefix{M: resource.Meta{Owner: owner}, Namespace: "a11",
				Prefix: netip.MustParsePrefix("10.0.1.0/24"), Status: "Active"})
			changed[2].(*resource.VLAN).Name = "provisioning"
			saved, _ := Plan(ctx, changed, Stateless(store), plan.DefaultPolicy(owner))
			tt.edit(store)

			again, err := SavedPerObject(ctx, saved.Plan, Stateless(store))
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, k := range again.Changed {
				keys = append(keys, k.String())
			}
			if got := strings.Join(keys, " "); got != tt.wantChanged {
				t.Errorf("SavedPerObject changed = %q, want %q", got, tt.wantChanged)
			}
			got := strings.Join(again.Plan.Refusals, "\n")
			switch {
			case tt.want == "" && got != "":
				t.Errorf("SavedPerObject refusals = %q, want none", got)
			case tt.want != "" && !strings.Contains(got, tt.want):
				t.Errorf("SavedPerObject refusals = %q, want one containing %q", got, tt.want)
			}
		})
	}
}
