package reconcile

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/memory"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

const owner = resource.Owner("static:dc")

func desired() []resource.Object {
	return []resource.Object{
		&resource.Namespace{M: resource.Meta{Owner: owner, Source: resource.Source{File: "dc.yaml", Line: 2, Col: 5}}, Name: "a11"},
		&resource.VLANGroup{M: resource.Meta{Owner: owner}, Name: "a11-12-network", Location: "DC-A11"},
		&resource.VLAN{M: resource.Meta{Owner: owner}, Group: "a11-12-network", VID: 100, Name: "prov", Status: "Active"},
		&resource.Prefix{M: resource.Meta{Owner: owner, Source: resource.Source{File: "dc.yaml", Line: 9, Col: 5}}, Namespace: "a11",
			Prefix: netip.MustParsePrefix("10.0.0.0/24"), VLAN: "a11-12-network/100", Status: "Active"},
	}
}

// namedStore is a store as a Target whose reads name the lookups names
// and refuse what check refuses.
type namedStore struct {
	*memory.Store
	names map[resource.Kind]map[string]bool
	check func(resource.Object) error
}

func (n namedStore) Read(ctx context.Context) (State, error) {
	st, err := Stateless(n.Store).Read(ctx)
	if err != nil {
		return nil, err
	}
	return namedState{st, n}, nil
}

type namedState struct {
	State
	n namedStore
}

func (s namedState) Names() map[resource.Kind]map[string]bool { return s.n.names }

func (s namedState) Check(c plan.Change, _ *plan.Plan) error {
	if s.n.check == nil || c.Desired == nil {
		return nil
	}
	return s.n.check(c.Desired)
}

func TestPlanApplyConverges(t *testing.T) {
	ctx := context.Background()
	store := memory.New()
	r, err := Plan(ctx, desired(), Stateless(store), plan.DefaultPolicy(owner))
	if err != nil {
		t.Fatal(err)
	}
	n, err := r.Apply(ctx)
	if err != nil || n != 4 {
		t.Fatalf("first Apply = %d, %v; want 4 writes", n, err)
	}
	r, err = Plan(ctx, desired(), Stateless(store), plan.DefaultPolicy(owner))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := r.Apply(ctx); err != nil || n != 0 {
		t.Errorf("second Apply = %d, %v; want 0 writes", n, err)
	}
}

func TestReferencesLocated(t *testing.T) {
	ctx := context.Background()
	store := namedStore{Store: memory.New(), names: map[resource.Kind]map[string]bool{
		resource.RefLocation: {"DC-B22": true}, resource.RefStatus: {"Active": true},
	}}
	d := desired()
	d = append(d, &resource.Prefix{M: resource.Meta{Owner: owner, Source: resource.Source{File: "dc.yaml", Line: 14, Col: 5}}, Namespace: "b22",
		Prefix: netip.MustParsePrefix("10.1.0.0/24"), Status: "Active"})
	r, err := Plan(ctx, d, store, plan.DefaultPolicy(owner))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range r.Problems {
		got = append(got, p.String())
	}
	want := []string{`location "DC-A11"`, `dc.yaml:14:5: namespace: namespace "b22"`}
	for _, w := range want {
		if !strings.Contains(strings.Join(got, "\n"), w) {
			t.Errorf("problems %q lack %q", got, w)
		}
	}
	if _, err := r.Apply(ctx); !errors.Is(err, ErrRefused) {
		t.Errorf("Apply with unresolved references = %v, want ErrRefused", err)
	}
	if objs, _ := store.List(ctx); len(objs) != 0 {
		t.Errorf("refused apply wrote %d objects", len(objs))
	}
}

func TestSavedPlanStaleness(t *testing.T) {
	ctx := context.Background()
	store := memory.New()
	r, _ := Plan(ctx, desired(), Stateless(store), plan.DefaultPolicy(owner))
	if _, err := r.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	changed := desired()
	changed[2].(*resource.VLAN).Name = "provisioning"
	saved, _ := Plan(ctx, changed, Stateless(store), plan.DefaultPolicy(owner))

	// Someone edits the VLAN between plan and apply.
	objs, _ := store.List(ctx)
	for _, o := range objs {
		if v, ok := o.(*resource.VLAN); ok {
			v.Description = "edited by hand"
			store.Put(v)
		}
	}
	again, err := Saved(ctx, saved.Plan, Stateless(store))
	if err != nil {
		t.Fatal(err)
	}
	_, err = again.Apply(ctx)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "vlan a11-12-network/100") {
		t.Errorf("Apply of stale plan = %v, want refusal naming the VLAN", err)
	}

	fresh, _ := Plan(ctx, changed, Stateless(store), plan.DefaultPolicy(owner))
	again, _ = Saved(ctx, fresh.Plan, Stateless(store))
	if n, err := again.Apply(ctx); err != nil || n != 1 {
		t.Errorf("Apply of fresh saved plan = %d, %v; want 1 write", n, err)
	}
}

func TestFailedReadNeverDeletes(t *testing.T) {
	_, err := Plan(context.Background(), nil, Stateless(failing{}), plan.DefaultPolicy(owner))
	if err == nil {
		t.Fatal("Plan over a failed read = nil error")
	}
}

type failing struct{}

func (failing) Server() string { return "the failing target" }

func (failing) List(context.Context) ([]resource.Object, error) {
	return nil, errors.New("read cut short")
}
func (failing) Apply(context.Context, []plan.Change) (int, error) {
	return 0, errors.New("must not be called")
}

func TestVIDOutsideTargetGroupRange(t *testing.T) {
	ctx := context.Background()
	store := memory.New(&resource.VLANGroup{Name: "b22-1-network", Range: resource.VIDRanges{{Lo: 200, Hi: 299}}})
	site := resource.Owner("neutron:b22")
	d := []resource.Object{&resource.VLAN{M: resource.Meta{Owner: site}, Group: "b22-1-network", VID: 175, Name: "tenant"}}
	r, err := Plan(ctx, d, Stateless(store), plan.DefaultPolicy(site))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Problems) != 1 || r.Problems[0].Field != "vid" || !strings.Contains(r.Problems[0].Message, "outside range 200-299") {
		t.Errorf("problems = %v, want the vid outside the group's range", r.Problems)
	}
}

// prefixesRefused is a target's check that refuses prefixes with err.
func prefixesRefused(err error) func(resource.Object) error {
	return func(o resource.Object) error {
		if o.Kind() == resource.KindPrefix {
			return err
		}
		return nil
	}
}

type fieldErr struct{ field, msg string }

func (e fieldErr) Error() string { return e.msg }
func (e fieldErr) Field() string { return e.field }

// TestCheckTargetFields: a Checker's errors become problems located in
// the spec, one per joined error, under the field an error names.
func TestCheckTargetFields(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"plain", errors.New("no place"), []string{"dc.yaml:9:5: prefix: no place"}},
		{"about a field", fieldErr{"status", "not for prefixes"}, []string{"dc.yaml:9:5: status: not for prefixes"}},
		{"joined", errors.Join(fieldErr{"status", "not for prefixes"}, fieldErr{"locations", "wrong type"}, errors.New("no place")),
			[]string{"dc.yaml:9:5: status: not for prefixes", "dc.yaml:9:5: locations: wrong type", "dc.yaml:9:5: prefix: no place"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Plan(context.Background(), desired(), namedStore{Store: memory.New(), check: prefixesRefused(tt.err)}, plan.DefaultPolicy(owner))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range r.Problems {
				got = append(got, p.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("problems = %q, want %q", got, tt.want)
			}
		})
	}
}
