package cli

import (
	"strings"
	"testing"
)

// TestDNSNameWithCapitals: a spec's DNS name with capitals is written,
// and the next plan finds nothing to do, on every server: Nautobot 3.x and
// NetBox store it lower case, Nautobot 2.4 as given, and the plan compares
// it as each stores it.
func TestDNSNameWithCapitals(t *testing.T) {
	capitals := func(s string) string {
		return strings.ReplaceAll(s, "dns_name: gw-12.a11.example.net", "dns_name: GW-12.A11.Example.NET")
	}
	eachTarget(t, func(t *testing.T, srv *target) {
		spec := srv.examples(t)
		if srv.section != "netbox" {
			spec = editedCopy(t, spec, capitals)
		} else {
			spec = netboxExamples(t, capitals)
		}
		cfg := serverConfig(t, srv.section, srv.URL(), srv.Token(), spec, "")
		mustRun(t, "bootstrap", "--config", cfg, "--commit")
		mustRun(t, "apply", "--config", cfg, "--commit")
		if code, out, errOut := run(t, nil, "plan", "--config", cfg); code != ExitOK {
			t.Errorf("plan after applying a DNS name with capitals: exit %d, want %d (nothing to do)\n%s\n%s", code, ExitOK, out, errOut)
		}
		found := false
		for _, ip := range srv.Objects(t, "ipam.ipaddress") {
			if n, _ := ip["dns_name"].(string); strings.EqualFold(n, "gw-12.a11.example.net") {
				found = true
				t.Logf("%s stores %q", srv.section, n)
			}
		}
		if !found {
			t.Errorf("no IP address with the DNS name gw-12.a11.example.net in any case")
		}
	})
}
