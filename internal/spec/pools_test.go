package spec

import (
	"testing"

	"github.com/ipsync/ipsync/internal/resource"
)

// TestLoadSubnetPools: valid pools decode as a plan compares them with
// Neutron: prefixes merged, Global as the namespace left out, lengths
// left out as zero (Neutron's choice), and pools of two sites may hold
// one range.
func TestLoadSubnetPools(t *testing.T) {
	path := "testdata/pools.yaml"
	objs, diags, err := Load([]string{path}, resource.StaticOwner("test"))
	if err != nil || len(diags) != 0 {
		t.Fatalf("Load(%s) = %v, %v; want no problems", path, diags, err)
	}
	tests := []struct {
		name, site, namespace, prefixes string
		version, def, min, max          int
		shared                          bool
		description                     string
	}{
		{"a11-tenant-v4", "a11", "a11", "10.11.128.0/22", 4, 26, 24, 28, false, "tenant subnets"},
		{"b22-tenant-v4", "b22", DefaultNamespace, "10.11.128.0/22", 4, 0, 0, 0, true, ""},
		{"a11-tenant-v6", "a11", "a11", "2001:db8:11::/48", 6, 64, 0, 128, false, ""},
		{"everywhere-v4", "", DefaultNamespace, "10.99.0.0/16", 4, 0, 32, 0, false, ""},
	}
	pools := map[string]*resource.SubnetPool{}
	for _, o := range objs {
		if p, ok := o.(*resource.SubnetPool); ok {
			pools[p.Name] = p
		}
	}
	if len(pools) != len(tests) {
		t.Errorf("Load(%s) = %d pools, want %d", path, len(pools), len(tests))
	}
	for _, tt := range tests {
		p := pools[tt.name]
		if p == nil {
			t.Errorf("Load(%s) lacks pool %s", path, tt.name)
			continue
		}
		if p.Site != tt.site || p.Namespace != tt.namespace || resource.PrefixesString(p.Prefixes) != tt.prefixes || p.IPVersion() != tt.version ||
			p.DefaultPrefixLen != tt.def || p.MinPrefixLen != tt.min || p.MaxPrefixLen != tt.max || p.Shared != tt.shared ||
			p.Description != tt.description || p.M.Owner != resource.StaticOwner("test") {
			t.Errorf("pool %s = %+v, want site %q, namespace %q, prefixes %s (IPv%d), lengths %d/%d/%d, shared %v, description %q",
				tt.name, p, tt.site, tt.namespace, tt.prefixes, tt.version, tt.def, tt.min, tt.max, tt.shared, tt.description)
		}
	}
}
