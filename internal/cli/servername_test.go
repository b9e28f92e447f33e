package cli

import (
	"os"
	"strings"
	"testing"
)

// TestMessagesNameTheServer: a name the target owns that is missing is to
// be made in that server, NetBox or Nautobot, and the plan says which.
func TestMessagesNameTheServer(t *testing.T) {
	eachTarget(t, func(t *testing.T, srv *target) {
		e := newTargetEnv(t, srv)
		spec := "vlan_groups:\n  - {name: a11-12-network, location: DC-A11, range: \"100-199\"}\nvlans:\n  - {vid: 100, name: v100, vlan_group: a11-12-network, tenant: no-such-tenant}\n"
		if err := os.WriteFile(e.spec, []byte(spec), 0o600); err != nil {
			t.Fatal(err)
		}
		name := map[string]string{"nautobot": "Nautobot", "netbox": "NetBox"}[srv.section]
		code, out, errOut := run(t, nil, "plan", "--config", e.cfg)
		want := `unknown tenant "no-such-tenant": create it in ` + name + " first"
		if code != ExitRefused || !strings.Contains(out+errOut, want) {
			t.Errorf("plan with an unknown tenant on %s: exit %d, want %d and %q\n%s\n%s", name, code, ExitRefused, want, out, errOut)
		}
	})
}
