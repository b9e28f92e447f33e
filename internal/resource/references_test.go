package resource

import (
	"net/netip"
	"slices"
	"testing"
)

// TestAppendReferences: AppendReferences adds to what dst holds exactly
// what References gives, for every kind.
func TestAppendReferences(t *testing.T) {
	objs := []Object{
		&Namespace{Name: "a11", Location: "DC-A11"},
		&VLANGroup{Name: "g", Location: "DC-A11", Tags: []string{"red", "blue"}},
		&VLAN{Group: "g", VID: 100, Status: "Active", Role: "oob", Tenant: "acme", Tags: []string{"red"}},
		&Prefix{Namespace: "a11", Prefix: netip.MustParsePrefix("10.0.0.0/24"), VLAN: "g/100", Status: "Active",
			Role: "oob", Tenant: "acme", Locations: []string{"a11", "a12"}, Tags: []string{"blue"}},
		&IPAddress{Namespace: "a11", Address: netip.MustParsePrefix("10.0.0.5/24"), Status: "Active", Tenant: "acme"},
		&IPAddress{Namespace: "a11", Address: netip.MustParsePrefix("10.0.0.6/24")},
		&SegmentRange{Name: "a11-vni"},
		&ASN{ASN: 65001, Status: "Active", Tags: []string{"red"}},
	}
	before := Reference{Field: "x", Kind: RefTag, Name: "kept"}
	for _, o := range objs {
		got := AppendReferences([]Reference{before}, o)
		want := append([]Reference{before}, o.References()...)
		if !slices.Equal(got, want) {
			t.Errorf("AppendReferences(%s) = %v, want %v", o.Key(), got, want)
		}
	}
}
