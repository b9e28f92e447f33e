package resource

import (
	"net/netip"
	"slices"
	"testing"
)

func TestUniqueKeys(t *testing.T) {
	tests := []struct {
		name string
		obj  Object
		want []UniqueKey
	}{
		{"vlan", &VLAN{Group: "g", VID: 100, Name: "prov"},
			[]UniqueKey{{Kind: KindVLAN, Field: "name", In: Key{KindVLANGroup, "g"}, Value: "prov"}}},
		{"vlan without a group", &VLAN{VID: 100, Name: "prov"}, nil},
		{"namespace", &Namespace{Name: "a11"}, nil},
		{"vlan group", &VLANGroup{Name: "g"}, nil},
		{"prefix", &Prefix{Namespace: "a11", Prefix: netip.MustParsePrefix("10.0.0.0/24")}, nil},
		{"ip address", &IPAddress{Namespace: "a11", Address: netip.MustParsePrefix("10.0.0.5/24")}, nil},
		{"segment range", &SegmentRange{Name: "r"}, nil},
		{"asn", &ASN{ASN: 65000}, nil},
	}
	kept := UniqueKey{Kind: KindVLAN, Field: "name", Value: "kept"}
	for _, tt := range tests {
		if got := tt.obj.UniqueKeys(); !slices.Equal(got, tt.want) {
			t.Errorf("%s: UniqueKeys() = %v, want %v", tt.name, got, tt.want)
		}
		if got, want := AppendUniqueKeys([]UniqueKey{kept}, tt.obj), append([]UniqueKey{kept}, tt.want...); !slices.Equal(got, want) {
			t.Errorf("%s: AppendUniqueKeys() = %v, want %v", tt.name, got, want)
		}
	}
	// Two VLANs of one group with one name share the key, whatever their
	// vids; in two groups they do not.
	a, b, c := &VLAN{Group: "g", VID: 1, Name: "x"}, &VLAN{Group: "g", VID: 2, Name: "x"}, &VLAN{Group: "h", VID: 1, Name: "x"}
	if a.UniqueKeys()[0] != b.UniqueKeys()[0] {
		t.Errorf("%v and %v differ, want them equal", a.UniqueKeys(), b.UniqueKeys())
	}
	if a.UniqueKeys()[0] == c.UniqueKeys()[0] {
		t.Errorf("%v equals %v of another group", a.UniqueKeys(), c.UniqueKeys())
	}
	if got, want := a.UniqueKeys()[0].String(), `vlan name "x" in vlan_group g`; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got, want := a.UniqueKeys()[0].Rule(), "two vlans with one name in one vlan_group"; got != want {
		t.Errorf("Rule() = %q, want %q", got, want)
	}
}

func TestRenumbering(t *testing.T) {
	tests := []struct {
		name             string
		desired, current Object
		want             FieldDiff
		ok               bool
	}{
		{"new vid", &VLAN{Group: "g", VID: 200, Name: "x"}, &VLAN{Group: "g", VID: 100, Name: "x"}, FieldDiff{"vid", "100", "200"}, true},
		{"same vid", &VLAN{Group: "g", VID: 100, Name: "x"}, &VLAN{Group: "g", VID: 100, Name: "x"}, FieldDiff{}, false},
		{"other name", &VLAN{Group: "g", VID: 200, Name: "y"}, &VLAN{Group: "g", VID: 100, Name: "x"}, FieldDiff{}, false},
		{"other group", &VLAN{Group: "h", VID: 200, Name: "x"}, &VLAN{Group: "g", VID: 100, Name: "x"}, FieldDiff{}, false},
		{"no group", &VLAN{VID: 200, Name: "x"}, &VLAN{VID: 100, Name: "x"}, FieldDiff{}, false},
		{"other kinds", &Namespace{Name: "x"}, &Namespace{Name: "y"}, FieldDiff{}, false},
	}
	for _, tt := range tests {
		got, ok := Renumbering(tt.desired, tt.current)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: Renumbering() = %v, %v, want %v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}
