package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpecSiteNotTheConfigs: a segment range or subnet pool naming a site
// the config does not declare is noted at its line, with the site it was
// likely meant for; a site-less one goes to every site, and a config of
// no sites writes to no Neutron: neither is noted. The plan goes on.
func TestSpecSiteNotTheConfigs(t *testing.T) {
	a11 := "sites:\n  - {name: a11, neutron: {endpoint: http://127.0.0.1:1}}\n"
	tests := []struct {
		name     string
		spec     string
		sites    string
		wantNote string // "": none
	}{
		{name: "a pool's site mistyped", spec: "subnet_pools:\n  - {name: p, site: a1l, prefixes: [10.8.0.0/16]}\n", sites: a11,
			wantNote: "pools.yaml:2:5: site: no site \"a1l\" in the config (its sites: a11): it goes to no Neutron this config writes to; did you mean \"a11\"?"},
		{name: "a range of another region's site",
			spec:     "segment_ranges:\n  - {name: r, site: b22, network_type: vlan, physical_network: p, minimum: 10, maximum: 20}\n",
			sites:    a11,
			wantNote: "pools.yaml:2:5: site: no site \"b22\" in the config (its sites: a11)"},
		{name: "a config of no sites", spec: "segment_ranges:\n  - {name: r, site: b22, network_type: vlan, physical_network: p, minimum: 10, maximum: 20}\n"},
		{name: "site-less and declared sites", spec: "subnet_pools:\n  - {name: p, prefixes: [10.8.0.0/16]}\n  - {name: q, site: a11, prefixes: [10.9.0.0/16]}\n", sites: a11},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "pools.yaml"), []byte(tt.spec), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg := writeConfig(t, fmt.Sprintf("spec: {name: deploy, paths: [%q]}\n%s", dir, tt.sites))
			code, out, errOut := run(t, nil, "plan", "--config", cfg, "--target", "memory")
			if code != ExitOK {
				t.Fatalf("plan = exit %d, want %d\n%s\n%s", code, ExitOK, out, errOut)
			}
			if tt.wantNote == "" && strings.Contains(errOut, "no site") {
				t.Errorf("stderr notes a site:\n%s", errOut)
			}
			if tt.wantNote != "" && (!strings.Contains(errOut, tt.wantNote) || !strings.HasPrefix(errOut, "note: ")) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantNote, errOut)
			}
		})
	}
}
