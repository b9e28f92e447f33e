package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
)

// TestExitCodes: what automation sees, one row per situation. Rows that
// need no server come first; the Nautobot rows run in order on one
// Nautobot, each row's setup taking it to the state it names.
func TestExitCodes(t *testing.T) {
	offline := []struct {
		name string
		args []string
		want int
	}{
		{"valid spec", []string{"validate", "examples/"}, ExitOK},
		{"invalid spec", []string{"validate", "internal/spec/testdata/invalid-cidr.yaml"}, ExitError},
		{"validate without a path", []string{"validate"}, ExitUsage},
		{"unknown command", []string{"sync"}, ExitUsage},
		{"unknown flag", []string{"plan", "--nope", "examples/"}, ExitUsage},
		{"unknown output format", []string{"plan", "--target", "memory", "-o", "yaml", "examples/"}, ExitUsage},
		{"unknown drift output format", []string{"drift", "-o", "pdf", "examples/"}, ExitUsage},
		{"unknown log level", []string{"validate", "--log-level", "loud", "examples/"}, ExitUsage},
		{"plan against an empty target has changes", []string{"plan", "--target", "memory", "examples/"}, ExitChanges},
		{"drift against an empty target drifts", []string{"drift", "--target", "memory", "examples/"}, ExitChanges},
		{"drift against Neutron", []string{"drift", "--target", "neutron", "examples/"}, ExitUsage},
		{"drift against an unknown target", []string{"drift", "--target", "nautobto", "examples/"}, ExitUsage},
		{"agent without --site", []string{"agent", "--config", "x.yaml"}, ExitUsage},
		{"bootstrap without --config", []string{"bootstrap"}, ExitUsage},
		{"missing config file", []string{"plan", "--config", "no/such/ipsync.yaml"}, ExitError},
	}
	for _, tt := range offline {
		t.Run(tt.name, func(t *testing.T) {
			if code, out, errOut := run(t, nil, tt.args...); code != tt.want {
				t.Errorf("ipsync %s = exit %d, want %d\n%s\n%s", strings.Join(tt.args, " "), code, tt.want, out, errOut)
			}
		})
	}
	eachNautobot(t, exitCodesAgainst)
}

func exitCodesAgainst(t *testing.T, srv *servertest.Server) {
	e := newSpecEnv(t, srv)
	unreachable := writeConfig(t, fmt.Sprintf("spec: {name: deploy, paths: [%q]}\nnautobot: {url: %q, token_file: %q}\nallowed_hosts: [127.0.0.1]\n",
		e.spec, "http://"+freeAddr(t), filepath.Join(filepath.Dir(e.cfg), "token")))
	noToken := writeConfig(t, fmt.Sprintf("spec: {name: deploy, paths: [%q]}\nnautobot: {url: %q}\n", e.spec, srv.URL()))
	withSite := writeConfig(t, fmt.Sprintf("spec: {name: deploy, paths: [%q]}\nnautobot: {url: %q, token_file: %q}\nsites: [{name: a11, neutron: {endpoint: %q}}]\n",
		e.spec, srv.URL(), filepath.Join(filepath.Dir(e.cfg), "token"), "http://"+freeAddr(t)))
	notAllowed := writeConfig(t, fmt.Sprintf("spec: {name: deploy, paths: [%q]}\nnautobot: {url: %q, token_file: %q}\nallowed_hosts: [nautobot.example.com]\n",
		e.spec, srv.URL(), filepath.Join(filepath.Dir(e.cfg), "token")))
	notAllowedSite := writeConfig(t, fmt.Sprintf("spec: {name: deploy, paths: [%q]}\nnautobot: {url: %q, token_file: %q}\nallowed_hosts: [nautobot.example.com]\nsites: [{name: a11, neutron: {auth: noauth, endpoint: %q}}]\n",
		e.spec, srv.URL(), filepath.Join(filepath.Dir(e.cfg), "token"), "http://"+freeAddr(t)))
	conflict := func(t *testing.T) {
		e.vlans(t, 20, "  - {vid: 150, name: by-hand, vlan_group: a11-12-network}\n")
		if !strings.Contains(vidsOf(t, e.srv), " 150 ") {
			e.direct(t, "ipam/vlans/", `{"vid": 150, "name": "by-hand", "vlan_group": {"name": "a11-12-network"}, "status": {"name": "Active"}}`)
		}
	}
	rows := []struct {
		name  string
		setup func(t *testing.T)
		args  []string
		want  int
	}{
		{"plan with creates", func(t *testing.T) { e.vlans(t, 20, "") }, []string{"plan", "--config", e.cfg}, ExitChanges},
		{"drift with missing objects", nil, []string{"drift", "--config", e.cfg}, ExitChanges},
		{"apply dry run", nil, []string{"apply", "--config", e.cfg}, ExitOK},
		{"apply", nil, []string{"apply", "--config", e.cfg, "--commit"}, ExitOK},
		{"plan in agreement", nil, []string{"plan", "--config", e.cfg}, ExitOK},
		{"plan -o json in agreement", nil, []string{"plan", "--config", e.cfg, "-o", "json"}, ExitOK},
		{"drift in agreement", nil, []string{"drift", "--config", e.cfg}, ExitOK},
		{"plan over the mass-delete guard", func(t *testing.T) { e.vlans(t, 2, "") }, []string{"plan", "--config", e.cfg}, ExitRefused},
		{"plan -o json over the mass-delete guard", nil, []string{"plan", "--config", e.cfg, "-o", "json"}, ExitRefused},
		{"apply over the mass-delete guard", nil, []string{"apply", "--config", e.cfg, "--commit"}, ExitRefused},
		{"plan with the guard lifted", nil, []string{"plan", "--config", e.cfg, "--allow-mass-delete"}, ExitChanges},
		{"plan with a conflict", conflict, []string{"plan", "--config", e.cfg}, ExitRefused},
		{"apply with a conflict", nil, []string{"apply", "--config", e.cfg, "--commit"}, ExitRefused},
		{"drift with a conflict", nil, []string{"drift", "--config", e.cfg}, ExitChanges},
		{"plan adopting", nil, []string{"plan", "--config", e.cfg, "--adopt"}, ExitChanges},
		{"plan with an unknown location", func(t *testing.T) {
			if err := os.WriteFile(e.spec, []byte("vlan_groups:\n  - {name: x-network, location: DC-NOWHERE}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, []string{"plan", "--config", e.cfg, "--allow-mass-delete"}, ExitRefused},
		{"drift with an unknown location", nil, []string{"drift", "--config", e.cfg}, ExitChanges},
		{"apply to a host not allowed", func(t *testing.T) { e.vlans(t, 20, "") }, []string{"apply", "--config", notAllowed, "--commit"}, ExitRefused},
		{"bootstrap of a host not allowed", nil, []string{"bootstrap", "--config", notAllowed, "--commit"}, ExitRefused},
		{"agent writing to a host not allowed", nil, []string{"agent", "--config", notAllowedSite, "--site", "a11"}, ExitRefused},
		{"plan of an unknown site", nil, []string{"plan", "--config", e.cfg, "--site", "nosuch"}, ExitUsage},
		{"drift of an unknown site", nil, []string{"drift", "--config", e.cfg, "--site", "nosuch"}, ExitUsage},
		{"plan with Nautobot unreachable", nil, []string{"plan", "--config", unreachable}, ExitError},
		{"drift with Nautobot unreachable", nil, []string{"drift", "--config", unreachable}, ExitError},
		{"drift without a token", nil, []string{"drift", "--config", noToken}, ExitError},
		{"drift with a site's Neutron unreachable", nil, []string{"drift", "--config", withSite}, ExitError},
	}
	for _, tt := range rows {
		if tt.setup != nil {
			tt.setup(t)
		}
		code, out, errOut := run(t, nil, tt.args...)
		if code != tt.want {
			t.Errorf("%s: ipsync %s = exit %d, want %d\n%s\n%s", tt.name, strings.Join(tt.args, " "), code, tt.want, out, errOut)
		}
	}
}

// writeConfig writes a config file into a new directory.
func writeConfig(t testing.TB, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ipsync.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDriftReport: -o selects the format as in plan; the report says which
// owner could not be checked instead of calling it unreachable, and the
// policy flags of writing commands are not drift's.
func TestDriftReport(t *testing.T) { eachNautobot(t, driftReport) }

func driftReport(t *testing.T, srv *servertest.Server) {
	e := newSpecEnv(t, srv)
	e.vlans(t, 3, "")
	for _, args := range [][]string{{"-o", "json"}, {"--output", "json"}, {"--format", "json"}} {
		_, out, errOut := run(t, nil, append([]string{"drift", "--config", e.cfg}, args...)...)
		var rep struct {
			Owners []struct {
				Owner string `json:"owner"`
			} `json:"owners"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Owners) != 1 {
			t.Errorf("drift %s: not the JSON report (%v):\n%s\n%s", strings.Join(args, " "), err, out, errOut)
		}
	}
	for _, flag := range []string{"--adopt", "--allow-mass-delete", "--mode=sync"} {
		if code, _, errOut := run(t, nil, "drift", "--config", e.cfg, flag); code != ExitUsage || !strings.Contains(errOut, "unknown flag") {
			t.Errorf("drift %s = exit %d, want a usage error:\n%s", flag, code, errOut)
		}
	}
	noToken := writeConfig(t, fmt.Sprintf("spec: {name: deploy, paths: [%q]}\nnautobot: {url: %q}\n", e.spec, srv.URL()))
	if _, _, errOut := run(t, nil, "drift", "--config", noToken); !strings.Contains(errOut, "IPSYNC_NAUTOBOT_TOKEN") {
		t.Errorf("drift without a token does not say where the token comes from:\n%s", errOut)
	}
	withSite := writeConfig(t, fmt.Sprintf("spec: {name: deploy, paths: [%q]}\nnautobot: {url: %q, token_file: %q}\nsites: [{name: a11, neutron: {endpoint: %q}}]\n",
		e.spec, srv.URL(), filepath.Join(filepath.Dir(e.cfg), "token"), "http://"+freeAddr(t)))
	_, out, errOut := run(t, nil, "drift", "--config", withSite)
	if !strings.Contains(out, "neutron:a11: NOT CHECKED: ") || strings.Contains(out, "UNREACHABLE") || !strings.Contains(errOut, "1 owner could not be checked") {
		t.Errorf("drift with a site down:\n%s\n%s", out, errOut)
	}
}
