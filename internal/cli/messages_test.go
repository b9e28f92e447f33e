package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
)

// badGrammar finds "1 objects", "error(s)", doubled prefixes and empty
// lists in parentheses.
var badGrammar = regexp.MustCompile(`(^|[^0-9.])1 (object|change|error|file|leak|conflict|reason|owner|segment range|path)s\b|\(s\)|apply: apply:|\(\w+: \)`)

func checkGrammar(t *testing.T, what, out string) {
	t.Helper()
	if m := badGrammar.FindString(out); m != "" {
		t.Errorf("%s says %q:\n%s", what, m, out)
	}
}

// TestValidateAndPlanCountTheSameObjects: validate's count is plan's plus
// the segment ranges and subnet pools, and plan says where those go.
func TestValidateAndPlanCountTheSameObjects(t *testing.T) {
	_, out, _ := run(t, nil, "validate", "examples/")
	if want := "63 objects in 3 files: valid (56 for Nautobot or NetBox, 6 segment ranges and 1 subnet pool for the sites' Neutron)\n"; out != want {
		t.Errorf("validate examples/ = %q, want %q", out, want)
	}
	code, js, errOut := run(t, nil, "plan", "--target", "memory", "-o", "json", "examples/")
	var doc struct {
		Changes []json.RawMessage `json:"changes"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || code != ExitChanges || len(doc.Changes) != 56 {
		t.Errorf("plan of examples/ = exit %d, %d changes, %v; want 56", code, len(doc.Changes), err)
	}
	if want := "note: the spec's 6 segment ranges and 1 subnet pool are not in this plan: they go to each site's Neutron (ipsync plan --config F --site S --target neutron)\n"; strings.Count(errOut, "note: the spec's") != 1 || !strings.Contains(errOut, want) {
		t.Errorf("plan does not say in one line where the segment ranges and subnet pools go, %q:\n%s", want, errOut)
	}
	_, out, _ = run(t, nil, "validate", "examples/common.yaml")
	if want := "9 objects in 1 file: valid\n"; out != want {
		t.Errorf("validate of one file = %q, want %q", out, want)
	}
}

// TestMessagesReadWell: counts agree with their nouns, errors are not
// wrapped twice in the same word, empty lists are not printed.
func TestMessagesReadWell(t *testing.T) { eachNautobot(t, messagesReadWell) }

func messagesReadWell(t *testing.T, srv *servertest.Server) {
	e := newSpecEnv(t, srv)
	if err := os.WriteFile(e.spec, []byte("vlan_groups:\n  - {name: a11-12-network, location: DC-A11}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"validate", e.spec}, "1 object in 1 file: valid"},
		{[]string{"validate", "internal/spec/testdata/invalid-cidr.yaml"}, "1 error; nothing was written"},
		{[]string{"apply", "--config", e.cfg}, "dry run: 1 change planned"},
		{[]string{"apply", "--config", e.cfg, "--commit"}, "applied: 1 object written"},
		{[]string{"plan", "--config", e.cfg}, "1 object currently owned"},
		{[]string{"drift", "--config", e.cfg, "--site", "a11"}, "declares no sites"},
		{[]string{"plan", "--config", e.cfg, "--site", "a11"}, "declares no sites"},
	} {
		_, out, errOut := run(t, nil, tt.args...)
		if !strings.Contains(out+errOut, tt.want) {
			t.Errorf("ipsync %s lacks %q:\n%s\n%s", strings.Join(tt.args, " "), tt.want, out, errOut)
		}
		checkGrammar(t, "ipsync "+strings.Join(tt.args, " "), out+errOut)
	}

	// A Nautobot that was never bootstrapped: the target's error, once.
	bare := servertest.Emulator(t)
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte(bare.Token()), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, fmt.Sprintf("spec: {name: deploy, paths: [%q]}\nnautobot: {url: %q, token_file: %q}\nallowed_hosts: [127.0.0.1]\n", e.spec, bare.URL(), token))
	code, out, errOut := run(t, nil, "apply", "--config", cfg, "--commit")
	if code != ExitError || !strings.Contains(errOut, "run ipsync bootstrap first") {
		t.Errorf("apply before bootstrap = exit %d:\n%s", code, errOut)
	}
	checkGrammar(t, "apply before bootstrap", out+errOut)
}
