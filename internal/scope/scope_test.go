package scope

import (
	"slices"
	"testing"

	"github.com/ipsync/ipsync/internal/resource"
)

func TestPlans(t *testing.T) {
	a := &resource.VLAN{Group: "g", VID: 100}
	b := &resource.VLAN{Group: "g", VID: 101}
	tests := []struct {
		name string
		sc   Scope
		want []bool // a, b
	}{
		{"not narrowed", Scope{}, []bool{true, true}},
		{"narrowed to a", Scope{Only: map[resource.Identity]bool{a.Identity(): true}}, []bool{true, false}},
		{"narrowed to nothing", Scope{Only: map[resource.Identity]bool{}}, []bool{false, false}},
	}
	for _, tt := range tests {
		if got := []bool{tt.sc.Plans(a), tt.sc.Plans(b)}; !slices.Equal(got, tt.want) {
			t.Errorf("%s: Plans(a), Plans(b) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestSite(t *testing.T) {
	sc := Site(resource.NeutronOwner("a11"), "a11", []string{"b-network", "a-network"})
	if want := []string{"a-network", "b-network"}; !slices.Equal(sc.VLANGroups, want) {
		t.Errorf("Site VLANGroups = %q, want %q sorted", sc.VLANGroups, want)
	}
	if !slices.Equal(sc.Namespaces, []string{"a11"}) || sc.Owner != "neutron:a11" || sc.Only != nil {
		t.Errorf("Site = %+v, want the site's namespace and owner, not narrowed", sc)
	}
}
