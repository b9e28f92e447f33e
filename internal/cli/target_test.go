package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
)

// TestTargetChoice: the config's target, or --target, picks the server;
// what is missing for it is named, and no request is sent before the
// checks that need none. Nothing listens at the NetBox URL here: a run
// that got as far as reading would fail differently.
func TestTargetChoice(t *testing.T) {
	examples := filepath.Join(repoRoot, "examples")
	down := "http://" + freeAddr(t)
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte("nbt_abcdefghijkl.secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	netboxOnly := writeConfig(t, fmt.Sprintf("spec: {name: deploy, paths: [%q]}\nnetbox: {url: %q, token_file: %q}\nallowed_hosts: [127.0.0.1]\n", examples, down, token))
	noToken := writeConfig(t, fmt.Sprintf("spec: {name: deploy, paths: [%q]}\nnetbox: {url: %q}\n", examples, down))
	notAllowed := writeConfig(t, fmt.Sprintf("spec: {name: deploy, paths: [%q]}\nnetbox: {url: %q, token_file: %q}\nallowed_hosts: [netbox.example.com]\n", examples, down, token))
	tests := []struct {
		name     string
		env      map[string]string
		args     []string
		wantCode int
		wantErr  string // a fragment of stderr
	}{
		{"a netbox section makes NetBox the target", nil, []string{"plan", "--config", netboxOnly},
			ExitError, "nothing listens at that address; is netbox.url right"},
		{"--target nautobot without a nautobot section", nil, []string{"plan", "--config", netboxOnly, "--target", "nautobot"},
			ExitError, "no Nautobot: set nautobot.url in the config"},
		{"no NetBox token", nil, []string{"plan", "--config", noToken},
			ExitError, "no NetBox token: set IPSYNC_NETBOX_TOKEN or netbox.token_file in the config"},
		{"the token from the environment", map[string]string{"IPSYNC_NETBOX_TOKEN": "nbt_abcdefghijkl.secret"}, []string{"plan", "--config", noToken},
			ExitError, "is netbox.url right"},
		{"a NetBox host not in allowed_hosts", nil, []string{"apply", "--config", notAllowed, "--commit"},
			ExitRefused, "is not in allowed_hosts"},
		{"bootstrap names NetBox", nil, []string{"bootstrap", "--config", noToken},
			ExitError, "no NetBox token"},
		{"an unknown target", nil, []string{"plan", "--config", netboxOnly, "--target", "netbx"},
			ExitUsage, `--target "netbx": want nautobot or netbox`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(t, tt.env, tt.args...)
			if code != tt.wantCode || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("ipsync %s = exit %d, want %d with %q\n%s\n%s", strings.Join(tt.args, " "), code, tt.wantCode, tt.wantErr, out, errOut)
			}
		})
	}
}

// TestSavedPlanPicksItsServer: a config holding both sections applies a
// saved plan to the server whose URL the plan names, whatever its target.
func TestSavedPlanPicksItsServer(t *testing.T) {
	srv := servertest.Emulator(t)
	e := newSpecEnv(t, srv)
	e.vlans(t, 2, "")
	planFile := filepath.Join(t.TempDir(), "plan.json")
	if code, out, errOut := run(t, nil, "plan", "--config", e.cfg, "--out", planFile); code != ExitChanges {
		t.Fatalf("plan: exit %d\n%s\n%s", code, out, errOut)
	}
	raw, err := os.ReadFile(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	both := writeConfig(t, "target: netbox\nnetbox: {url: \"http://"+freeAddr(t)+"\"}\n"+string(raw))
	code, out, errOut := run(t, nil, "apply", "--plan", planFile, "--config", both, "--commit")
	if code != ExitOK || !strings.Contains(errOut, "written to "+srv.URL()) {
		t.Errorf("apply --plan with both sections: exit %d, want 0 and the plan written to its Nautobot\n%s\n%s", code, out, errOut)
	}
	if n := len(srv.Objects(t, "ipam.vlan")); n != 2 {
		t.Errorf("Nautobot holds %d VLANs after the apply, want 2", n)
	}
}
