package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
)

// renumberSpec is a namespace, a group, three VLANs and a prefix using
// the one named x: x's vid, the names of VLANs 101 and 102, and extra
// VLANs.
func renumberSpec(x uint16, a, b string, extra string) string {
	return fmt.Sprintf(`namespaces:
  - {name: renumber-ns}
vlan_groups:
  - {name: a11-12-network, location: DC-A11, range: "100-299"}
vlans:
  - {vid: %d, name: x, vlan_group: a11-12-network}
  - {vid: 101, name: %s, vlan_group: a11-12-network}
  - {vid: 102, name: %s, vlan_group: a11-12-network}
%sprefixes:
  - {prefix: 10.0.0.0/24, namespace: renumber-ns, vlan: a11-12-network/%d}
`, x, a, b, extra, x)
}

func (e *specEnv) write(t *testing.T, spec string) {
	t.Helper()
	if err := os.WriteFile(e.spec, []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRenumberAndSwapFromSavedPlan: a static VLAN renumbered under its
// name and two VLANs swapping names apply from a saved plan, in place:
// the VLAN keeps its id, and its prefix keeps it.
func TestRenumberAndSwapFromSavedPlan(t *testing.T) { eachNautobot(t, renumberAndSwapFromSavedPlan) }

func renumberAndSwapFromSavedPlan(t *testing.T, srv *servertest.Server) {
	e := newSpecEnv(t, srv)
	write := func(spec string) { e.write(t, spec) }
	idOf := func(vid int) string {
		for _, v := range e.srv.Objects(t, "ipam.vlan") {
			if fmt.Sprint(v["vid"]) == fmt.Sprint(vid) {
				return fmt.Sprint(v["id"])
			}
		}
		return ""
	}
	write(renumberSpec(100, "a", "b", ""))
	mustRun(t, "apply", "--config", e.cfg, "--commit")
	id := idOf(100)

	write(renumberSpec(200, "b", "a", ""))
	planFile := filepath.Join(t.TempDir(), "plan.json")
	out := mustRun(t, "plan", "--config", e.cfg, "--out", planFile)
	for _, want := range []string{`vid: "100" -> "200"`, "renumbered in place", `renamed to "ipsync-renaming-101" first`} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	if code, out, errOut := run(t, nil, "apply", "--plan", planFile, "--config", e.cfg, "--commit"); code != ExitOK {
		t.Fatalf("apply of the saved renumber = exit %d:\n%s\n%s", code, out, errOut)
	}
	if code, out, errOut := run(t, nil, "plan", "--config", e.cfg); code != ExitOK {
		t.Errorf("plan after the renumber = exit %d, want no changes:\n%s\n%s", code, out, errOut)
	}
	if got := idOf(200); got != id || idOf(100) != "" {
		t.Errorf("VLAN 200 has id %q, want the id of VLAN 100 (%s), which is gone", got, id)
	}
	for _, p := range e.srv.Objects(t, "ipam.prefix") {
		if v, _ := p["vlan"].(map[string]any); fmt.Sprint(v["id"]) != id {
			t.Errorf("prefix %v uses VLAN %v, want %s", p["prefix"], p["vlan"], id)
		}
	}
}

// TestNameTakenRefusedBeforeAnyWrite: a VLAN named like an unmarked VLAN
// of its group is refused before any write, naming both, where Nautobot
// would refuse it halfway through the apply.
func TestNameTakenRefusedBeforeAnyWrite(t *testing.T) {
	eachNautobot(t, nameTakenRefusedBeforeAnyWrite)
}

func nameTakenRefusedBeforeAnyWrite(t *testing.T, srv *servertest.Server) {
	e := newSpecEnv(t, srv)
	e.write(t, renumberSpec(100, "a", "b", ""))
	mustRun(t, "apply", "--config", e.cfg, "--commit")
	e.direct(t, "ipam/vlans/", `{"vid": 150, "name": "by-hand", "vlan_group": {"name": "a11-12-network"}, "status": {"name": "Active"}}`)
	e.write(t, renumberSpec(100, "a", "b", "  - {vid: 103, name: c, vlan_group: a11-12-network}\n  - {vid: 160, name: by-hand, vlan_group: a11-12-network}\n"))
	e.srv.ResetCounts()
	code, out, errOut := run(t, nil, "apply", "--config", e.cfg, "--commit")
	want := e.spec + `:10:5) and vlan a11-12-network/150 (without an ipsync marker) both have name "by-hand" in vlan_group a11-12-network`
	if code != ExitRefused || !strings.Contains(out+errOut, want) || e.writes() != 0 {
		t.Errorf("apply of a VLAN named like an unmarked one = exit %d, %d writes:\n%s\n%s\nwant exit %d naming both: %s",
			code, e.writes(), out, errOut, ExitRefused, want)
	}
}
