package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/nautobot/emulator/emulatortest"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
)

// specEnv is a Nautobot or a NetBox plus a config whose spec is one file
// the test rewrites between runs.
type specEnv struct {
	srv  *target
	cfg  string
	spec string
}

func newSpecEnv(t *testing.T, srv *servertest.Server) *specEnv {
	t.Helper()
	return newTargetEnv(t, nautobotTarget(srv))
}

func newTargetEnv(t *testing.T, srv *target) *specEnv {
	t.Helper()
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte(srv.Token()), 0o600); err != nil {
		t.Fatal(err)
	}
	e := &specEnv{srv: srv, cfg: filepath.Join(dir, "ipsync.yaml"), spec: filepath.Join(dir, "spec.yaml")}
	cfg := fmt.Sprintf("spec: {name: deploy, paths: [%q]}\n%s: {url: %q, token_file: %q}\nallowed_hosts: [127.0.0.1]\n", e.spec, srv.section, srv.URL(), token)
	if err := os.WriteFile(e.cfg, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "bootstrap", "--config", e.cfg, "--commit")
	return e
}

// vlans writes a spec of one VLAN group and VLANs 100..100+n-1.
func (e *specEnv) vlans(t *testing.T, n int, extra string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("vlan_groups:\n  - {name: a11-12-network, location: DC-A11, range: \"100-199\"}\nvlans:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - {vid: %d, name: v%d, vlan_group: a11-12-network}\n", 100+i, 100+i)
	}
	b.WriteString(extra)
	if err := os.WriteFile(e.spec, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (e *specEnv) writes() int {
	return e.srv.Requests("POST", "/api/ipam/") + e.srv.Requests("PATCH", "/api/ipam/") + e.srv.Requests("DELETE", "/api/ipam/")
}

// direct creates an object in the server as a person would, outside ipsync.
func (e *specEnv) direct(t *testing.T, path, body string) {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	e.srv.Call(t, http.MethodPost, "/api/"+path, v, nil)
}

// TestApplyScenarios: create, no-op, update, owner-scoped delete, adopt,
// conflicts, the mass-delete guard and a stale saved plan, on each Nautobot
// and on the real NetBox.
func TestApplyScenarios(t *testing.T) {
	eachTarget(t, applyScenarios)
}

func applyScenarios(t *testing.T, srv *target) {
	e := newTargetEnv(t, srv)
	e.vlans(t, 20, "")
	mustRun(t, "apply", "--config", e.cfg, "--commit")
	if got := e.srv.Count(t, "ipam.vlan"); got != 20 {
		t.Fatalf("after first apply: %d VLANs, want 20", got)
	}

	e.srv.ResetCounts()
	mustRun(t, "apply", "--config", e.cfg, "--commit")
	if n := e.writes(); n != 0 {
		t.Errorf("second apply: %d write requests, want 0", n)
	}
	if n := e.srv.Requests("GET", "/api/ipam/vlans/"); n != 1 {
		t.Errorf("second apply read VLANs in %d requests, want one paged sweep (1 page)", n)
	}

	t.Run("update of a field", func(t *testing.T) {
		e.vlans(t, 20, "")
		spec, _ := os.ReadFile(e.spec)
		_ = os.WriteFile(e.spec, []byte(strings.Replace(string(spec), "name: v105,", "name: v105-renamed,", 1)), 0o600)
		out := mustRun(t, "plan", "--config", e.cfg)
		if !strings.Contains(out, `name: "v105" -> "v105-renamed"`) {
			t.Errorf("plan lacks the field diff:\n%s", out)
		}
		e.srv.ResetCounts()
		mustRun(t, "apply", "--config", e.cfg, "--commit")
		if n := e.srv.Requests("PATCH", "/api/ipam/vlans/"); n != 1 {
			t.Errorf("update sent %d PATCH requests, want 1", n)
		}
	})

	t.Run("delete is scoped to the owner", func(t *testing.T) {
		// Someone's own VLAN and another owner's VLAN in the same group.
		e.srv.handVLAN(t, 150, "by-hand", "a11-12-network", "")
		e.srv.handVLAN(t, 151, "site-owned", "a11-12-network", "neutron:a11")
		e.vlans(t, 19, "") // v119 is no longer desired
		mustRun(t, "apply", "--config", e.cfg, "--commit")
		got := vidsOf(t, e.srv)
		for _, want := range []string{"150", "151"} {
			if !strings.Contains(got, want) {
				t.Errorf("VLAN %s not owned by the spec was deleted (left: %s)", want, got)
			}
		}
		if strings.Contains(got, " 119 ") {
			t.Errorf("VLAN 119 owned by the spec and no longer desired survived")
		}
	})

	t.Run("unmarked object is a conflict, adopted on request", func(t *testing.T) {
		e.vlans(t, 19, "  - {vid: 150, name: by-hand, vlan_group: a11-12-network}\n")
		code, out, errOut := run(t, nil, "apply", "--config", e.cfg, "--commit")
		if code == 0 || !strings.Contains(out, "! conflict vlan a11-12-network/150") || !strings.Contains(errOut, "nothing was written") {
			t.Errorf("apply over an unmarked VLAN = exit %d:\n%s\n%s", code, out, errOut)
		}
		out = mustRun(t, "apply", "--config", e.cfg, "--commit", "--adopt")
		if !strings.Contains(out, "& adopt vlan a11-12-network/150") {
			t.Errorf("apply --adopt does not say it adopts:\n%s", out)
		}
	})

	t.Run("another owner's object is a conflict", func(t *testing.T) {
		e.vlans(t, 19, "  - {vid: 150, name: by-hand, vlan_group: a11-12-network}\n  - {vid: 151, name: site-owned, vlan_group: a11-12-network}\n")
		code, out, errOut := run(t, nil, "apply", "--config", e.cfg, "--commit", "--adopt")
		if code != ExitRefused || !strings.Contains(out, "owned by neutron:a11") {
			t.Errorf("apply over another owner's VLAN = exit %d:\n%s", code, out)
		}
		// --adopt was given and cannot help with another owner's object.
		if strings.Contains(out+errOut, "--adopt") {
			t.Errorf("apply --adopt over another owner's VLAN still suggests --adopt:\n%s\n%s", out, errOut)
		}
	})

	t.Run("mass delete is refused", func(t *testing.T) {
		e.vlans(t, 2, "")
		e.srv.ResetCounts()
		code, _, errOut := run(t, nil, "apply", "--config", e.cfg, "--commit")
		if code == 0 || !strings.Contains(errOut, "--allow-mass-delete") || e.writes() != 0 {
			t.Errorf("mass delete = exit %d, %d writes:\n%s", code, e.writes(), errOut)
		}
	})

	t.Run("stale saved plan is refused", func(t *testing.T) {
		e.vlans(t, 20, "  - {vid: 150, name: by-hand, vlan_group: a11-12-network}\n")
		planFile := filepath.Join(t.TempDir(), "plan.json")
		spec, _ := os.ReadFile(e.spec)
		_ = os.WriteFile(e.spec, []byte(strings.Replace(string(spec), "name: v101,", "name: v101-new,", 1)), 0o600)
		mustRun(t, "plan", "--config", e.cfg, "--out", planFile)
		// Someone edits VLAN 101 after the plan was made.
		for _, v := range e.srv.Objects(t, "ipam.vlan") {
			if fmt.Sprint(v["vid"]) == "101" {
				e.srv.Call(t, http.MethodPatch, "/api/ipam/vlans/"+fmt.Sprint(v["id"])+"/", map[string]any{"description": "edited by hand"}, nil)
			}
		}
		code, _, errOut := run(t, nil, "apply", "--config", e.cfg, "--plan", planFile, "--commit")
		if code == 0 || !strings.Contains(errOut, "vlan a11-12-network/101") || !strings.Contains(errOut, "changed") {
			t.Errorf("stale plan apply = exit %d:\n%s", code, errOut)
		}
	})

	t.Run("unknown location names the spec file and line", func(t *testing.T) {
		if err := os.WriteFile(e.spec, []byte("vlan_groups:\n  - {name: x-network, location: DC-NOWHERE}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := run(t, nil, "plan", "--config", e.cfg)
		if code != ExitRefused || !strings.Contains(errOut, e.spec+":2:5: location: unknown location \"DC-NOWHERE\"") && !strings.Contains(out, e.spec+":2:5: location: unknown location \"DC-NOWHERE\"") {
			t.Errorf("plan with an unknown location = exit %d:\n%s\n%s", code, out, errOut)
		}
	})
}

func TestWriteRefusedOutsideAllowedHosts(t *testing.T) {
	eachNautobot(t, writeRefusedOutsideAllowedHosts)
}

func writeRefusedOutsideAllowedHosts(t *testing.T, srv *servertest.Server) {
	e := newSpecEnv(t, srv)
	e.vlans(t, 1, "")
	cfg, _ := os.ReadFile(e.cfg)
	_ = os.WriteFile(e.cfg, []byte(strings.Replace(string(cfg), "allowed_hosts: [127.0.0.1]", "allowed_hosts: [nautobot.example.com]", 1)), 0o600)
	e.srv.ResetCounts()
	code, out, errOut := run(t, nil, "apply", "--config", e.cfg, "--commit")
	if code != ExitRefused || !strings.Contains(errOut, "allowed_hosts") || e.writes() != 0 {
		t.Errorf("apply to a host not allowed = exit %d, %d writes: %s", code, e.writes(), errOut)
	}
	// Refused before anything is read or printed: no retries against a
	// host that may be down, no plan to scroll past.
	if n := e.srv.Requests("", "/"); n != 0 || out != "" {
		t.Errorf("apply to a host not allowed sent %d requests and printed %q before refusing", n, out)
	}
}

func vidsOf(t *testing.T, srv interface {
	Objects(testing.TB, string) []map[string]any
}) string {
	var b strings.Builder
	b.WriteString(" ")
	for _, v := range srv.Objects(t, "ipam.vlan") {
		fmt.Fprintf(&b, "%v ", v["vid"])
	}
	return b.String()
}

func TestUnsupportedFieldRefusedBeforeAnyWrite(t *testing.T) {
	eachNautobot(t, unsupportedFieldRefused)
}

func unsupportedFieldRefused(t *testing.T, srv *servertest.Server) {
	e := newSpecEnv(t, srv)
	e.vlans(t, 3, "asns:\n  - {asn: 65011, rir: private}\n")
	e.srv.ResetCounts()
	code, _, errOut := run(t, nil, "apply", "--config", e.cfg, "--commit")
	if code == 0 || !strings.Contains(errOut, "spec.yaml:8:5: asn: ") || !strings.Contains(errOut, "no rir") {
		t.Errorf("apply of an ASN with a RIR = exit %d:\n%s", code, errOut)
	}
	if n := e.writes() + e.srv.Requests("POST", "/api/plugins/"); n != 0 {
		t.Errorf("%d writes before the refusal, want none", n)
	}
}

// TestApplySavedPlanNeedsOnlyTheConfig: a saved plan is applied without its
// spec; the config gives the URL and token, and without it the message says
// that this is all it needs.
func TestApplySavedPlanNeedsOnlyTheConfig(t *testing.T) { eachNautobot(t, applySavedPlan) }

func applySavedPlan(t *testing.T, srv *servertest.Server) {
	e := newSpecEnv(t, srv)
	e.vlans(t, 5, "")
	planFile := filepath.Join(t.TempDir(), "plan.json")
	mustRun(t, "plan", "--config", e.cfg, "--out", planFile)
	if err := os.Remove(e.spec); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"apply", "--plan", planFile, "--commit"}, "needs --config"},
		{[]string{"apply", "--plan", planFile, "--config", e.cfg, "--commit", "examples/"}, "drop the spec paths"},
		{[]string{"apply", "--plan", planFile, "--config", e.cfg, "--commit", "--adopt"}, "drop --adopt"},
	} {
		if code, _, errOut := run(t, nil, tt.args...); code != ExitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("ipsync %s = exit %d, want %d saying %q:\n%s", strings.Join(tt.args, " "), code, ExitUsage, tt.want, errOut)
		}
	}
	if code, out, errOut := run(t, nil, "apply", "--plan", planFile, "--config", e.cfg, "--commit"); code != ExitOK {
		t.Fatalf("apply --plan with the config alone = exit %d:\n%s\n%s", code, out, errOut)
	}
	if got := e.srv.Count(t, "ipam.vlan"); got != 5 {
		t.Errorf("after applying the saved plan: %d VLANs, want 5", got)
	}
}

// TestNetworkErrors: a retried request says so on stderr at the default log
// level; an error retrying cannot fix ends the run at once and says why.
func TestNetworkErrors(t *testing.T) {
	// Faults are injected: the emulator alone.
	srv := servertest.Emulator(t)
	e := newSpecEnv(t, srv)
	e.vlans(t, 3, "")
	srv.Emulator().Inject(emulatortest.Fault{Method: "GET", PathPrefix: "/api/ipam/vlans/", Status: 503, Times: 2})
	code, _, errOut := run(t, nil, "plan", "--config", e.cfg)
	// The CLI's default log: text, warnings and worse.
	if code != ExitChanges || strings.Count(errOut, `level=WARN msg="nautobot request failed; retrying"`) != 2 || !strings.Contains(errOut, "/api/ipam/vlans/") {
		t.Errorf("plan through two 503s = exit %d; want each retry on stderr:\n%s", code, errOut)
	}

	down := writeConfig(t, fmt.Sprintf("spec: {name: deploy, paths: [%q]}\nnautobot: {url: %q}\n", e.spec, "http://"+freeAddr(t)))
	start := time.Now()
	code, _, errOut = run(t, map[string]string{"IPSYNC_NAUTOBOT_TOKEN": srv.Token()}, "plan", "--config", down)
	if took := time.Since(start); code != ExitError || took > 3*time.Second || !strings.Contains(errOut, "connection refused") ||
		!strings.Contains(errOut, "not retried") || strings.Contains(errOut, "retrying") {
		t.Errorf("plan against a closed port = exit %d after %s; want a quick error saying why it was not retried:\n%s", code, took, errOut)
	}
}

// TestConfigFileErrorsAndPaths: a config typo is reported at its line with
// a did-you-mean, and every relative path in the config is relative to the
// config file, not to where ipsync runs.
func TestConfigFileErrorsAndPaths(t *testing.T) { eachNautobot(t, configFileErrorsAndPaths) }

func configFileErrorsAndPaths(t *testing.T, srv *servertest.Server) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"secrets/token":   srv.Token(),
		"specs/vlan.yaml": "vlan_groups:\n  - {name: a11-12-network, location: DC-A11}\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "ipsync.yaml")
	write := func(doc string) {
		if err := os.WriteFile(cfg, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(fmt.Sprintf("spec: {name: deploy, paths: [specs]}\nnautobot:\n  url: %s\n  tokn: secrets/token\n", srv.URL()))
	code, _, errOut := run(t, nil, "plan", "--config", cfg)
	if want := cfg + `:4:3: nautobot.tokn: unknown field; did you mean "token_file"?`; code != ExitError || !strings.Contains(errOut, want) {
		t.Errorf("plan with a config typo = exit %d:\n%s\nwant %s", code, errOut, want)
	}
	// run works from the repository root, not from dir.
	write(fmt.Sprintf("spec: {name: deploy, paths: [specs]}\nnautobot:\n  url: %s\n  token_file: secrets/token\n", srv.URL()))
	if code, out, errOut := run(t, nil, "plan", "--config", cfg); code != ExitChanges || !strings.Contains(out, "create vlan_group a11-12-network") {
		t.Errorf("plan with relative spec and token paths = exit %d:\n%s\n%s", code, out, errOut)
	}
}
