package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
)

// TestPhysnetNotInPhysnetGroups: with physnet_groups naming only one of a
// routed network's physical networks, as the README's example config
// does, the other maps to the VLAN group of its own name, which Nautobot
// has: both VLANs are planned and no leak claims the group is missing.
func TestPhysnetNotInPhysnetGroups(t *testing.T) {
	base := neutronURL(t)
	eachNautobot(t, func(t *testing.T, srv *servertest.Server) {
		cfg := siteConfig(t, srv, base, "    physnet_groups: {a11-12-network: a11-12-network}\n")
		mustRun(t, "bootstrap", "--config", cfg, "--commit")
		mustRun(t, "apply", "--config", cfg, "--commit")
		routedNetwork(t, base, fmt.Sprintf("physnet-%d", time.Now().UnixNano()%100000), 172, 173, "172.29.12.0/24", "172.29.13.0/24")
		var doc struct {
			planLeaks
			Changes []struct{ Action, Kind, Key string } `json:"changes"`
		}
		if err := json.Unmarshal([]byte(mustRun(t, "plan", "--config", cfg, "--site", "a11", "-o", "json")), &doc); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"a11-12-network/172", "a11-13-network/173"} {
			found := false
			for _, c := range doc.Changes {
				found = found || c.Action == "create" && c.Kind == "vlan" && c.Key == key
			}
			if !found {
				t.Errorf("plan does not create vlan %s: %+v", key, doc.Changes)
			}
		}
		if doc.has("segment", "physnet-") {
			t.Errorf("plan reports a leak for the routed network: %+v", doc.Leaks)
		}
	})
}

// TestPhysnetNotInPhysnetGroupsSeesWhatIsThere: a VLAN already in the
// group named like a physical network that physnet_groups does not list,
// made by hand, is a conflict the plan shows and apply refuses before its
// first write, as in a listed group; not a create that fails half-way.
func TestPhysnetNotInPhysnetGroupsSeesWhatIsThere(t *testing.T) {
	base := neutronURL(t)
	eachNautobot(t, func(t *testing.T, srv *servertest.Server) {
		cfg := siteConfig(t, srv, base, "    physnet_groups: {a11-12-network: a11-12-network}\n")
		mustRun(t, "bootstrap", "--config", cfg, "--commit")
		mustRun(t, "apply", "--config", cfg, "--commit")
		vlanByHand(t, srv, "a11-13-network", 175, "by-hand")
		routedNetwork(t, base, fmt.Sprintf("physnet-hand-%d", time.Now().UnixNano()%100000), 174, 175, "172.29.14.0/24", "172.29.15.0/24")

		code, out, errOut := run(t, nil, "plan", "--config", cfg, "--site", "a11", "-o", "json")
		if code != ExitRefused {
			t.Fatalf("plan: exit %d, want %d (refused)\n%s\n%s", code, ExitRefused, out, errOut)
		}
		var doc struct {
			Changes []struct{ Action, Kind, Key string } `json:"changes"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		conflict := false
		for _, c := range doc.Changes {
			conflict = conflict || c.Action == "conflict" && c.Key == "a11-13-network/175"
		}
		if !conflict {
			t.Errorf("plan shows no conflict on vlan a11-13-network/175: %+v", doc.Changes)
		}
		if code, out, errOut := run(t, nil, "apply", "--config", cfg, "--site", "a11", "--commit"); code != ExitRefused {
			t.Errorf("apply: exit %d, want %d (refused)\n%s\n%s", code, ExitRefused, out, errOut)
		}
		if got := vlansOf(t, srv, "neutron:a11"); slices.Contains(got, "174") {
			t.Errorf("apply wrote VLAN 174 of the refused plan: %q", got)
		}
	})
}

// TestSavedPlanSeesVLANsMadeSinceInUnlistedGroups: a VLAN made by hand,
// after the plan was saved, at a VID the plan creates in a group
// physnet_groups does not list, makes the saved plan stale: refused
// before its first write, not a create failing half-way.
func TestSavedPlanSeesVLANsMadeSinceInUnlistedGroups(t *testing.T) {
	base := neutronURL(t)
	eachNautobot(t, func(t *testing.T, srv *servertest.Server) {
		cfg := siteConfig(t, srv, base, "    physnet_groups: {a11-12-network: a11-12-network}\n")
		mustRun(t, "bootstrap", "--config", cfg, "--commit")
		mustRun(t, "apply", "--config", cfg, "--commit")
		routedNetwork(t, base, fmt.Sprintf("physnet-saved-%d", time.Now().UnixNano()%100000), 176, 177, "172.29.16.0/24", "172.29.17.0/24")
		saved := filepath.Join(t.TempDir(), "plan.json")
		if code, out, errOut := run(t, nil, "plan", "--config", cfg, "--site", "a11", "--out", saved); code != ExitChanges {
			t.Fatalf("plan: exit %d, want %d\n%s\n%s", code, ExitChanges, out, errOut)
		}

		vlanByHand(t, srv, "a11-13-network", 177, "by-hand-since")

		code, out, errOut := run(t, nil, "apply", "--plan", saved, "--config", cfg, "--commit")
		if code != ExitRefused || !strings.Contains(out+errOut, "a11-13-network/177") {
			t.Errorf("apply of the saved plan: exit %d, want %d naming vlan a11-13-network/177\n%s\n%s", code, ExitRefused, out, errOut)
		}
		if got := vlansOf(t, srv, "neutron:a11"); slices.Contains(got, "176") {
			t.Errorf("apply wrote VLAN 176 of the stale plan: %q", got)
		}
	})
}

// vlanByHand makes an unmarked VLAN in one of the examples' groups, as a
// person would.
func vlanByHand(t *testing.T, srv *servertest.Server, group string, vid int, name string) {
	t.Helper()
	var groups struct {
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
	}
	srv.Call(t, "GET", "/api/ipam/vlan-groups/?name="+group, nil, &groups)
	if len(groups.Results) != 1 {
		t.Fatalf("the examples' VLAN group %s: %d found", group, len(groups.Results))
	}
	srv.Call(t, "POST", "/api/ipam/vlans/", map[string]any{"vid": vid, "name": name, "status": "Active",
		"vlan_group": groups.Results[0].ID}, nil)
}
