package cli

import (
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/netbox/netboxtest"
)

// These tests run the README's NetBox flow end to end against the real
// NetBox of IPSYNC_NETBOX_URL (scripts/netbox-up.sh start), with the
// repository's examples as spec.

func netboxConfig(t testing.TB, s *netboxtest.Server, specPath string) string {
	t.Helper()
	return serverConfig(t, "netbox", s.URL(), s.Token(), specPath, "")
}

// netboxExamples copies the examples' NetBox flavour (examples-netbox/),
// each file passed through edit, and returns the copy's folder.
func netboxExamples(t testing.TB, edit func(string) string) string {
	t.Helper()
	return editedCopy(t, filepath.Join(repoRoot, "examples-netbox"), edit)
}

func unchanged(s string) string { return s }

// writes counts the requests that write, since the last ResetCounts.
func writes(s *netboxtest.Server) int {
	return s.Requests("POST", "/api/") + s.Requests("PATCH", "/api/") + s.Requests("PUT", "/api/") + s.Requests("DELETE", "/api/")
}

// ownedVLAN is the id of the VLAN vid of group owned by static:deploy.
func ownedVLAN(t *testing.T, s *netboxtest.Server, group string, vid int) (id, description string) {
	t.Helper()
	for _, v := range s.Objects(t, "ipam.vlan", fmt.Sprintf("vid=%d", vid), "cf_ipsync_owner=static:deploy") {
		if g, _ := v["group"].(map[string]any); g["name"] == group {
			return fmt.Sprint(v["id"]), fmt.Sprint(v["description"])
		}
	}
	t.Fatalf("no VLAN %s/%d owned by static:deploy in NetBox", group, vid)
	return "", ""
}

// TestNetBoxFlow: bootstrap, plan, apply --commit, a plan with nothing to
// do that writes nothing, then a hand edit in NetBox that drift reports.
func TestNetBoxFlow(t *testing.T) {
	s := netboxtest.New(t)
	cfg := netboxConfig(t, s, netboxExamples(t, unchanged))

	if out := mustRun(t, "bootstrap", "--config", cfg, "--commit"); !strings.Contains(out, "created") {
		t.Errorf("bootstrap of an empty NetBox created nothing:\n%s", out)
	}
	if out := mustRun(t, "bootstrap", "--config", cfg, "--commit"); !strings.Contains(out, "already in NetBox") {
		t.Errorf("second bootstrap:\n%s", out)
	}
	if code, out, errOut := run(t, nil, "plan", "--config", cfg); code != ExitChanges || !strings.Contains(out, "+ create vlan a11-12-network/100") {
		t.Fatalf("plan against an empty NetBox: exit %d, want %d with the examples' creates\n%s\n%s", code, ExitChanges, out, errOut)
	}
	if _, _, errOut := run(t, nil, "apply", "--config", cfg, "--commit"); !strings.Contains(errOut, "written to "+s.URL()) {
		t.Fatalf("apply --commit did not write to NetBox:\n%s", errOut)
	}

	s.ResetCounts()
	code, out, errOut := run(t, nil, "plan", "--config", cfg)
	if code != ExitOK || !strings.Contains(out, "No changes") {
		t.Errorf("plan after the apply: exit %d, want 0 and no changes\n%s\n%s", code, out, errOut)
	}
	if n := writes(s); n != 0 {
		t.Errorf("plan after the apply sent %d writes, want 0", n)
	}

	if items := driftItems(t, cfg); len(items) != 0 {
		t.Errorf("drift after the apply = %v, want none", items)
	}
	id, _ := ownedVLAN(t, s, "a11-12-network", 100)
	s.Call(t, "PATCH", "/api/ipam/vlans/"+id+"/", map[string]any{"description": "edited by hand"}, nil)
	if code, _, _ := run(t, nil, "drift", "--config", cfg); code != ExitChanges {
		t.Errorf("drift after a hand edit: exit %d, want %d", code, ExitChanges)
	}
	if items := driftItems(t, cfg); !slices.Contains(items, "static:deploy different vlan a11-12-network/100") {
		t.Errorf("drift after a hand edit = %v, want the edited VLAN as different", items)
	}
}

// TestNetBoxSavedPlanObjectChangedSince: a saved plan updates two VLANs;
// one is edited in NetBox after the plan. apply --plan writes the other,
// refuses the edited one (412) and leaves it as the person left it, says
// so, and exits 3.
func TestNetBoxSavedPlanObjectChangedSince(t *testing.T) {
	s := netboxtest.New(t)
	cfg := netboxConfig(t, s, netboxExamples(t, unchanged))
	mustRun(t, "bootstrap", "--config", cfg, "--commit")
	mustRun(t, "apply", "--config", cfg, "--commit")

	// The same spec with a description on both a11 storage VLANs.
	changed := netboxConfig(t, s, netboxExamples(t, func(doc string) string {
		return strings.ReplaceAll(doc, "{vid: 101, name: storage, vlan_group: a11-1", `{vid: 101, name: storage, description: "storage, planned", vlan_group: a11-1`)
	}))
	planFile := filepath.Join(t.TempDir(), "plan.json")
	code, out, errOut := run(t, nil, "plan", "--config", changed, "--out", planFile)
	if code != ExitChanges || !strings.Contains(out, "~ update vlan a11-12-network/101") || !strings.Contains(out, "~ update vlan a11-13-network/101") {
		t.Fatalf("plan: exit %d, want %d with both VLANs updated\n%s\n%s", code, ExitChanges, out, errOut)
	}

	edited, _ := ownedVLAN(t, s, "a11-12-network", 101)
	s.Call(t, "PATCH", "/api/ipam/vlans/"+edited+"/", map[string]any{"description": "edited by hand"}, nil)

	code, out, errOut = run(t, nil, "apply", "--plan", planFile, "--config", changed, "--commit")
	if code != ExitRefused {
		t.Errorf("apply --plan with an object changed since: exit %d, want %d\n%s\n%s", code, ExitRefused, out, errOut)
	}
	for _, want := range []string{
		"an object changed since is refused (412) and left as it is",
		"vlan a11-12-network/101",
		"applied in part: 1 object written to " + s.URL() + "; 1 change refused because its object changed in NetBox since the plan was made",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("apply --plan output lacks %q:\n%s", want, errOut)
		}
	}
	if _, d := ownedVLAN(t, s, "a11-12-network", 101); d != "edited by hand" {
		t.Errorf("the VLAN edited since the plan has description %q, want the hand edit kept", d)
	}
	if _, d := ownedVLAN(t, s, "a11-13-network", 101); d != "storage, planned" {
		t.Errorf("the other VLAN has description %q, want the plan's", d)
	}
}

// TestNetBoxAgentLease: the agent of a site takes its one-writer lease in
// NetBox (a tag there), reports the site's Neutron unreachable without
// writing anything, and gives the lease back when it stops.
func TestNetBoxAgentLease(t *testing.T) {
	s := netboxtest.New(t)
	cfg := serverConfig(t, "netbox", s.URL(), s.Token(), netboxExamples(t, unchanged), fmt.Sprintf(`sites:
  - name: a11
    namespace: a11
    neutron: {auth: noauth, endpoint: %q}
agent: {interval: 24h}
`, "http://"+freeAddr(t)))
	mustRun(t, "bootstrap", "--config", cfg, "--commit")
	leaseTags := func() int { return len(s.Objects(t, "extras.tag", "name=ipsync-lease:neutron:a11")) }

	s.ResetCounts()
	agent := startAgent(t, cfg)
	agent.waitFor(t, "take its lease in NetBox", time.Minute, func() bool { return leaseTags() == 1 })
	agent.waitFor(t, "report Neutron unreachable", time.Minute, func() bool {
		code, body := httpGet("http://" + agent.listen + "/readyz")
		return code == http.StatusServiceUnavailable && strings.Contains(body, "neutron")
	})
	if n := s.Requests("POST", "/api/ipam/") + s.Requests("PATCH", "/api/ipam/") + s.Requests("DELETE", "/api/ipam/"); n != 0 {
		t.Errorf("with its Neutron unreachable the agent sent %d IPAM writes to NetBox, want 0", n)
	}
	agent.stop(t, 30*time.Second)
	if n := leaseTags(); n != 0 {
		t.Errorf("after the agent stopped NetBox holds %d lease tags, want 0 (released)", n)
	}
}
