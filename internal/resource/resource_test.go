package resource

import (
	"encoding/json"
	"net/netip"
	"slices"
	"testing"
)

func TestParseVIDRanges(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr bool
	}{
		{in: "100-199,300-310", want: "100-199,300-310"},
		{in: "300-310, 100-199", want: "100-199,300-310"},
		{in: "7", want: "7"},
		{in: "1-4094", want: "1-4094"},
		{in: "0-10", wantErr: true},
		{in: "1-4095", wantErr: true},
		{in: "20-10", wantErr: true},
		{in: "1-10,5-20", wantErr: true},
		{in: "a-b", wantErr: true},
		{in: "", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseVIDRanges(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseVIDRanges(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if err == nil && got.String() != tt.want {
			t.Errorf("ParseVIDRanges(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSetEqual(t *testing.T) {
	tests := []struct {
		a, b []string
		want bool
	}{
		{nil, nil, true},
		{nil, []string{}, true},
		{[]string{"b", "a"}, []string{"a", "b"}, true},
		{[]string{"a", "a", "b"}, []string{"b", "a"}, true},
		{[]string{"a"}, []string{"a", "b"}, false},
		{[]string{"a", "c"}, []string{"a", "b"}, false},
	}
	for _, tt := range tests {
		if got := SetEqual(tt.a, tt.b); got != tt.want {
			t.Errorf("SetEqual(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestDiffIgnoresSetOrderAndMarker(t *testing.T) {
	a := &Prefix{M: Meta{Owner: "static:x", ID: "1"}, Namespace: "n", Prefix: netip.MustParsePrefix("10.0.0.0/24"), Locations: []string{"B", "A"}, Tags: []string{"y", "x"}}
	b := &Prefix{M: Meta{ID: "2", Version: "v"}, Namespace: "n", Prefix: netip.MustParsePrefix("10.0.0.0/24"), Locations: []string{"A", "B"}, Tags: []string{"x", "y"}}
	if d := a.Diff(b); d != nil {
		t.Errorf("Diff = %v, want none", d)
	}
	b.Tags = []string{"x"}
	if d := a.Diff(b); len(d) != 1 || d[0].Field != "tags" || d[0].Old != "x" || d[0].New != "x,y" {
		t.Errorf("Diff = %v, want tags x -> x,y", d)
	}
}

func TestKeysAndIdentities(t *testing.T) {
	objs := []Object{
		&Namespace{Name: "a11"},
		&VLANGroup{Name: "a11-12-network"},
		&VLAN{Group: "a11-12-network", VID: 100},
		&Prefix{Namespace: "a11", Prefix: netip.MustParsePrefix("10.0.0.0/24")},
		&IPAddress{Namespace: "a11", Address: netip.MustParsePrefix("10.0.0.5/24")},
		&SegmentRange{Name: "a11-vni"},
		&ASN{ASN: 65001},
	}
	want := []string{"namespace a11", "vlan_group a11-12-network", "vlan a11-12-network/100", "prefix a11/10.0.0.0/24",
		"ip_address a11/10.0.0.5", "segment_range a11-vni", "asn 65001"}
	for i, o := range objs {
		if got := o.Key().String(); got != want[i] {
			t.Errorf("Key() = %q, want %q", got, want[i])
		}
		if o.Key().Kind != o.Identity().Kind || o.Kind() != o.Key().Kind {
			t.Errorf("%s: Kind, Key and Identity disagree", want[i])
		}
		c := Clone(o)
		if c.Identity() != o.Identity() || c.Diff(o) != nil {
			t.Errorf("Clone(%s) differs", want[i])
		}
		raw, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Decode(o.Kind(), raw)
		if err != nil || back.Identity() != o.Identity() {
			t.Errorf("Decode(Marshal(%s)) = %v, %v", want[i], back, err)
		}
	}
	if got := []Kind{KindNamespace, KindVLANGroup, KindVLAN, KindPrefix, KindIPAddress}; !slices.IsSortedFunc(got, func(a, b Kind) int { return a.Rank() - b.Rank() }) {
		t.Errorf("kinds not in dependency order: %v", got)
	}
}

func TestParseOwner(t *testing.T) {
	for _, ok := range []string{"static:deploy", "neutron:a11"} {
		if _, err := ParseOwner(ok); err != nil {
			t.Errorf("ParseOwner(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "static", "static:", "nautobot:x"} {
		if _, err := ParseOwner(bad); err == nil {
			t.Errorf("ParseOwner(%q) = nil error", bad)
		}
	}
}

func TestRankMatchesKinds(t *testing.T) {
	for i, k := range Kinds() {
		if k.Rank() != i {
			t.Errorf("%s.Rank() = %d, want %d", k, k.Rank(), i)
		}
	}
	if Kind("bogus").Rank() != -1 {
		t.Errorf("unknown kind has a rank")
	}
}

func TestEmptyRangeIsWholeRange(t *testing.T) {
	all, _ := ParseVIDRanges("1-4094")
	a := &VLANGroup{Name: "g", Range: all}
	b := &VLANGroup{Name: "g"}
	if d := a.Diff(b); d != nil {
		t.Errorf("Diff(1-4094, none) = %v, want none", d)
	}
}
