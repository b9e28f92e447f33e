package resource

import (
	"net/netip"
	"strings"
	"testing"
)

func prefixes(t *testing.T, s string) []netip.Prefix {
	t.Helper()
	if s == "" {
		return nil
	}
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		p, err := netip.ParsePrefix(strings.TrimSpace(f))
		if err != nil {
			t.Fatalf("bad test prefix %q: %v", f, err)
		}
		out = append(out, p)
	}
	return out
}

// TestMergePrefixes: a pool's prefixes as Neutron stores them, masked,
// sorted, prefixes inside others dropped and sibling halves joined until
// none are left, so that a plan compares the spec with Neutron like for
// like.
func TestMergePrefixes(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"one", "10.0.0.0/24", "10.0.0.0/24"},
		{"siblings join", "10.0.0.0/24,10.0.1.0/24", "10.0.0.0/23"},
		{"siblings in any order", "10.0.1.0/24,10.0.0.0/24", "10.0.0.0/23"},
		{"adjacent but not siblings stay apart", "10.0.1.0/24,10.0.2.0/24", "10.0.1.0/24,10.0.2.0/24"},
		{"joins cascade", "10.0.0.0/24,10.0.1.0/24,10.0.2.0/23", "10.0.0.0/22"},
		{"four quarters", "10.0.3.0/24,10.0.0.0/24,10.0.2.0/24,10.0.1.0/24", "10.0.0.0/22"},
		{"a join makes a sibling of a bigger one", "10.0.2.0/23,10.0.0.0/24,10.0.1.0/24,10.0.4.0/22", "10.0.0.0/21"},
		{"inside another dropped", "10.0.0.0/16,10.0.5.0/24", "10.0.0.0/16"},
		{"inside another given first", "10.0.5.0/24,10.0.0.0/16", "10.0.0.0/16"},
		{"overlapping then joined", "10.0.0.0/24,10.0.0.128/25,10.0.1.0/24", "10.0.0.0/23"},
		{"duplicates", "10.0.0.0/24,10.0.0.0/24", "10.0.0.0/24"},
		{"host bits masked", "10.0.0.1/24,10.0.1.7/24", "10.0.0.0/23"},
		{"gap kept", "10.0.0.0/24,10.0.2.0/24,10.1.0.0/16", "10.0.0.0/24,10.0.2.0/24,10.1.0.0/16"},
		{"whole space", "0.0.0.0/1,128.0.0.0/1", "0.0.0.0/0"},
		{"IPv6 siblings", "2001:db8::/64,2001:db8:0:1::/64", "2001:db8::/63"},
		{"IPv6 not siblings", "2001:db8:0:1::/64,2001:db8:0:2::/64", "2001:db8:0:1::/64,2001:db8:0:2::/64"},
		{"IPv6 inside another", "2001:db8:0:5::/64,2001:db8::/48", "2001:db8::/48"},
		{"IPv6 cascade", "2001:db8::/64,2001:db8:0:1::/64,2001:db8:0:2::/63", "2001:db8::/62"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := prefixes(t, tt.in)
			if got := PrefixesString(MergePrefixes(in)); got != tt.want {
				t.Errorf("MergePrefixes(%s) = %s, want %s", tt.in, got, tt.want)
			}
			// Merging is idempotent: what Neutron stores it stores again.
			once := MergePrefixes(in)
			if got := PrefixesString(MergePrefixes(once)); got != tt.want {
				t.Errorf("MergePrefixes(MergePrefixes(%s)) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

// TestMergePrefixesKeepsInput: the caller's slice is not reordered.
func TestMergePrefixesKeepsInput(t *testing.T) {
	in := prefixes(t, "10.0.1.0/24,10.0.0.0/24")
	MergePrefixes(in)
	if got := PrefixesString(in); got != "10.0.1.0/24,10.0.0.0/24" {
		t.Errorf("MergePrefixes changed its input to %s", got)
	}
}

func TestCovers(t *testing.T) {
	tests := []struct {
		ps, p string
		want  bool
	}{
		{"10.0.0.0/23", "10.0.0.0/23", true},
		{"10.0.0.0/23", "10.0.1.0/24", true},
		{"10.0.0.0/23", "10.0.1.192/26", true},
		{"10.0.0.0/24", "10.0.0.0/23", false}, // wider than the pool
		{"10.0.0.0/24", "10.0.1.0/24", false},
		{"10.0.0.0/24,10.0.2.0/24", "10.0.2.64/26", true},
		{"10.0.0.0/24,10.0.2.0/24", "10.0.0.0/22", false}, // spans both and the gap
		{"", "10.0.0.0/24", false},
		{"2001:db8::/48", "2001:db8:0:7::/64", true},
		{"2001:db8::/48", "2001:db9::/64", false},
		{"2001:db8::/64", "2001:db8::/48", false},
		{"10.0.0.0/8", "::a00:0/104", false}, // an IPv4-compatible IPv6 prefix is not inside
	}
	for _, tt := range tests {
		ps, p := prefixes(t, tt.ps), prefixes(t, tt.p)[0]
		if got := Covers(ps, p); got != tt.want {
			t.Errorf("Covers(%s, %s) = %v, want %v", tt.ps, tt.p, got, tt.want)
		}
	}
}

// TestSubnetPoolDiffMerged: a pool declared in halves and one Neutron
// holds merged are in agreement once both are merged; a real widening is
// a diff of prefixes.
func TestSubnetPoolDiffMerged(t *testing.T) {
	spec := &SubnetPool{Name: "p", Namespace: "a11", Prefixes: MergePrefixes(prefixes(t, "10.0.0.0/24,10.0.1.0/24"))}
	cur := &SubnetPool{Name: "p", Namespace: "a11", Prefixes: prefixes(t, "10.0.0.0/23")}
	if d := spec.Diff(cur); len(d) != 0 {
		t.Errorf("Diff of merged halves against their parent = %v, want none", d)
	}
	wide := &SubnetPool{Name: "p", Namespace: "a11", Prefixes: MergePrefixes(prefixes(t, "10.0.0.0/23,10.0.4.0/24"))}
	d := wide.Diff(cur)
	if len(d) != 1 || d[0].Field != "prefixes" {
		t.Fatalf("Diff of a widened pool = %v, want one diff of prefixes", d)
	}
	if spec.IPVersion() != 4 || (&SubnetPool{Prefixes: prefixes(t, "2001:db8::/48")}).IPVersion() != 6 || (&SubnetPool{}).IPVersion() != 0 {
		t.Errorf("IPVersion: want 4, 6 and 0 without prefixes")
	}
	if got := spec.Scope(); got != (Key{KindAddressScope, "a11/v4"}) {
		t.Errorf("Scope() = %v, want address scope a11/v4", got)
	}
}
