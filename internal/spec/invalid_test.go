package spec

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/resource"
)

// TestInvalidFiles loads each testdata/invalid-<rule>.yaml, which breaks
// exactly one rule, and wants exactly one diagnostic naming the file, the
// line and the field at fault.
func TestInvalidFiles(t *testing.T) {
	tests := []struct {
		file  string
		line  int
		field string
		want  string // part of the message
	}{
		{"invalid-syntax.yaml", 3, "description", `mapping values are not allowed in this context; a value containing ": " must be quoted`},
		{"invalid-syntax-unclosed-quote.yaml", 2, "name", "the quoted text that starts here is never closed"},
		{"invalid-syntax-tab.yaml", 3, "name", "found a tab character"},
		{"invalid-syntax-unclosed-brace.yaml", 2, "", "the { that opens here is never closed"},
		{"invalid-root-not-a-mapping.yaml", 1, "", "a spec file is a mapping of kinds"},
		{"invalid-unknown-kind.yaml", 3, "vlan", `unknown kind "vlan"; did you mean "vlans"?`},
		{"invalid-not-a-list.yaml", 2, "namespaces", "must be a list of namespace items, got a mapping"},
		{"invalid-unknown-field.yaml", 4, "vlan_id", `unknown field "vlan_id" in vlan; did you mean "vid"?`},
		{"invalid-repeated-field.yaml", 4, "description", "first set at line 3"},
		{"invalid-wrong-type-vid.yaml", 4, "vid", `must be an integer, got text "abc"`},
		{"invalid-wrong-type-tags.yaml", 3, "tags", "must be a list of text"},
		{"invalid-wrong-type-bool.yaml", 6, "shared", "must be true or false"},
		{"invalid-missing-required.yaml", 4, "name", "required field missing in this vlan"},
		{"invalid-duplicate-namespace.yaml", 4, "name", "duplicate namespace a11, first declared at testdata/invalid-duplicate-namespace.yaml:2:5"},
		{"invalid-duplicate-vlan-group.yaml", 5, "name", "duplicate vlan_group a11-12-network, first declared at testdata/invalid-duplicate-vlan-group.yaml:2:5"},
		{"invalid-duplicate-vlan.yaml", 6, "vid", "duplicate vlan a11-12-network/100, first declared at testdata/invalid-duplicate-vlan.yaml:4:5"},
		{"invalid-duplicate-vlan-name.yaml", 6, "name", "name \"provisioning\" is taken in vlan_group a11-12-network by vlan a11-12-network/100, declared at testdata/invalid-duplicate-vlan-name.yaml:4:5; nautobot refuses two vlans with one name in one vlan_group"},
		{"invalid-duplicate-prefix.yaml", 5, "prefix", "duplicate prefix a11/10.11.0.0/16, first declared at testdata/invalid-duplicate-prefix.yaml:4:5"},
		{"invalid-duplicate-ip.yaml", 5, "address", "duplicate ip_address Global/10.0.0.5, first declared at testdata/invalid-duplicate-ip.yaml:4:5"},
		{"invalid-duplicate-segment-range.yaml", 3, "name", "duplicate segment_range a11-vni"},
		{"invalid-duplicate-asn.yaml", 3, "asn", "duplicate asn 65011"},
		{"invalid-vid-bounds.yaml", 4, "vid", "5000 is outside 1-4094"},
		{"invalid-vid-outside-group-range.yaml", 6, "vid", "vid 250 is outside range 100-199,300-310 of vlan_group a11-12-network"},
		{"invalid-range-malformed.yaml", 3, "range", `"abc" is not a number`},
		{"invalid-range-overlap.yaml", 3, "range", "range parts 100-199 and 150-160 overlap"},
		{"invalid-segment-min-max.yaml", 5, "minimum", "minimum 199 is greater than maximum 150"},
		{"invalid-segment-bounds.yaml", 5, "maximum", "16777216 is outside 1-16777215"},
		{"invalid-segment-overlap.yaml", 4, "minimum", "range 190-210 overlaps segment range a11-12-tenant-vlans (150-199"},
		{"invalid-segment-physnet-missing.yaml", 2, "physical_network", "required when network_type is vlan"},
		{"invalid-segment-physnet-forbidden.yaml", 4, "physical_network", "only vlan ranges have a physical network"},
		{"invalid-segment-project-required.yaml", 2, "project_id", "required when shared is false"},
		{"invalid-segment-network-type.yaml", 3, "network_type", `did you mean "vxlan"?`},
		{"invalid-cidr.yaml", 4, "prefix", `invalid CIDR "10.0.300.0/24"`},
		{"invalid-host-bits.yaml", 4, "prefix", "10.0.0.1/24: host bits set, did you mean 10.0.0.0/24"},
		{"invalid-prefix-type.yaml", 3, "type", `did you mean "container"?`},
		{"invalid-network-overlap.yaml", 6, "prefix", "network 10.11.12.128/25 overlaps network 10.11.12.0/24"},
		{"invalid-ip-outside-prefix.yaml", 8, "address", "10.99.0.5 is outside every prefix of namespace a11"},
		{"invalid-ip-network-address.yaml", 6, "address", "10.0.12.0 is the network address of prefix 10.0.12.0/24"},
		{"invalid-ip-broadcast-address.yaml", 6, "address", "10.0.12.255 is the broadcast address of prefix 10.0.12.0/24"},
		{"invalid-ip-no-mask.yaml", 4, "address", "needs the mask length of its subnet"},
		{"invalid-ref-vlan-group.yaml", 6, "vlan_group", `vlan_group "a11-12-netwrok" is not declared in the spec; did you mean "a11-12-network"?`},
		{"invalid-ref-vlan.yaml", 7, "vlan", "vlan a11-12-network/101 is not declared in the spec"},
		{"invalid-ref-vlan-syntax.yaml", 3, "vlan", "is not a VLAN reference"},
		{"invalid-ref-namespace.yaml", 5, "namespace", `namespace "a12" is not declared in the spec; did you mean "a11"?`},
		{"invalid-ref-namespace-ip.yaml", 5, "namespace", `namespace "b22" is not declared`},
		{"invalid-asn-range.yaml", 2, "asn", "4294967296 is outside 1-4294967295"},
		{"invalid-duplicate-subnet-pool.yaml", 3, "name", "duplicate subnet_pool a11-tenant-v4, first declared at testdata/invalid-duplicate-subnet-pool.yaml:2:5"},
		{"invalid-pool-missing-prefixes.yaml", 2, "prefixes", "required field missing in this subnet_pool"},
		{"invalid-pool-no-prefixes.yaml", 4, "prefixes", "a pool needs at least one prefix"},
		{"invalid-pool-prefixes-not-a-list.yaml", 4, "prefixes", "must be a list of text"},
		{"invalid-pool-cidr.yaml", 4, "prefixes", `invalid CIDR "10.11.300.0/24"`},
		{"invalid-pool-host-bits.yaml", 4, "prefixes", "10.11.128.1/18: host bits set, did you mean 10.11.128.0/18"},
		{"invalid-pool-mixed-versions.yaml", 4, "prefixes", "10.11.128.0/18 and 2001:db8:11::/48: a pool holds prefixes of one IP version"},
		{"invalid-pool-prefixlen-too-long.yaml", 5, "max_prefixlen", "33 is longer than an IPv4 prefix can be (32)"},
		{"invalid-pool-prefixlen-zero.yaml", 5, "min_prefixlen", "0 is outside 1-128"},
		{"invalid-pool-prefixlen-over-128.yaml", 6, "max_prefixlen", "129 is outside 1-128"},
		{"invalid-pool-min-over-default.yaml", 5, "min_prefixlen", "min_prefixlen 28 is greater than default_prefixlen 26"},
		{"invalid-pool-default-over-max.yaml", 6, "default_prefixlen", "default_prefixlen 29 is greater than max_prefixlen 28"},
		{"invalid-pool-min-over-max.yaml", 6, "min_prefixlen", "min_prefixlen 64 is greater than max_prefixlen 56"},
		{"invalid-pool-overlap.yaml", 4, "prefixes", "10.11.160.0/20 overlaps 10.11.128.0/18 of subnet pool a11-tenant-v4 (declared at testdata/invalid-pool-overlap.yaml:2:5) in site a11"},
		{"invalid-pool-overlap-no-site.yaml", 4, "prefixes", "10.22.64.0/18 overlaps 10.22.0.0/16 of subnet pool b22-tenant-v4 (declared at testdata/invalid-pool-overlap-no-site.yaml:3:5) in every site it goes to"},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.file] = true
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", tt.file)
			objs, diags, err := Load([]string{path}, resource.StaticOwner("test"))
			if err != nil {
				t.Fatalf("Load(%s) error = %v", path, err)
			}
			if len(diags) != 1 {
				t.Fatalf("Load(%s) = %d diagnostics, want 1:\n%v", path, len(diags), diags)
			}
			d := diags[0]
			if d.File != path || d.Line != tt.line || d.Field != tt.field || !strings.Contains(d.Message, tt.want) {
				t.Errorf("Load(%s) = %s\nwant file %s, line %d, field %q, message containing %q", path, d, path, tt.line, tt.field, tt.want)
			}
			if s := d.String(); !strings.HasPrefix(s, path+":") || (tt.field != "" && !strings.Contains(s, tt.field+": ")) {
				t.Errorf("String() = %q, want it to start with %s: and name field %q", s, path, tt.field)
			}
			for _, o := range objs {
				if o.Meta().Source.File != path {
					t.Errorf("object %s has source %v, want file %s", o.Key(), o.Meta().Source, path)
				}
			}
		})
	}
	files, err := filepath.Glob("testdata/invalid-*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !covered[filepath.Base(f)] {
			t.Errorf("%s has no row in this table", f)
		}
	}
	if len(files) < 15 {
		t.Errorf("%d invalid-*.yaml files, want at least 15", len(files))
	}
}

// TestSyntaxErrorColumns: a syntax error is placed where the fix goes, to
// the column, not at the start of a line the parser happened to be on.
func TestSyntaxErrorColumns(t *testing.T) {
	tests := []struct {
		file      string
		line, col int
	}{
		{"invalid-syntax.yaml", 3, 26},                // the second ": " in a plain value
		{"invalid-syntax-unclosed-quote.yaml", 2, 22}, // the opening quote
		{"invalid-syntax-tab.yaml", 3, 1},             // the tab
		{"invalid-syntax-unclosed-brace.yaml", 2, 5},  // the opening brace
	}
	for _, tt := range tests {
		path := filepath.Join("testdata", tt.file)
		_, diags, err := Load([]string{path}, resource.StaticOwner("test"))
		if err != nil || len(diags) != 1 {
			t.Fatalf("Load(%s) = %v, %v; want one diagnostic", path, diags, err)
		}
		if d := diags[0]; d.Line != tt.line || d.Col != tt.col {
			t.Errorf("Load(%s) = %s, want it at %d:%d", path, d, tt.line, tt.col)
		}
	}
}

// TestEveryProblemOfAnItem: an item with a wrong field still has its other
// fields checked, references included, so one run shows every fix.
func TestEveryProblemOfAnItem(t *testing.T) {
	path := filepath.Join("testdata", "problems-in-one-item.yaml")
	_, diags, err := Load([]string{path}, resource.StaticOwner("test"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		path + `:5:11: vid: must be an integer, got text "abc"`,
		path + `:5:30: vlan_group: vlan_group "nosuch" is not declared in the spec`,
		path + `:7:14: prefix: 10.0.0.1/24: host bits set, did you mean 10.0.0.0/24`,
		path + `:7:38: namespace: namespace "nons" is not declared in the spec`,
		path + `:7:50: vlan: vlan a11-12-network/7 is not declared in the spec`,
	}
	var got []string
	for _, d := range diags {
		got = append(got, d.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("Load(%s) =\n%s\nwant\n%s", path, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestEdgeAddresses: the first and last address of a prefix are refused
// for an IP unless the prefix is a pool, whose every address Nautobot
// counts as usable.
func TestEdgeAddresses(t *testing.T) {
	path := filepath.Join("testdata", "edge-addresses.yaml")
	_, diags, err := Load([]string{path}, resource.StaticOwner("test"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		path + ":9:15: address: 10.0.12.0 is the network address of prefix 10.0.12.0/24 (declared at " + path + ":3:5)",
		path + ":10:15: address: 10.0.13.255 is the broadcast address of prefix 10.0.13.0/24 (declared at " + path + ":5:5)",
	}
	var got []string
	for _, d := range diags {
		got = append(got, d.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("Load(%s) =\n%s\nwant\n%s", path, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
