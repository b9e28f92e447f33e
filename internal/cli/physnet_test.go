package cli

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/nautobot/nbtest"
)

// TestPhysnetNotInPhysnetGroups: with physnet_groups naming only one of a
// routed network's physical networks, as the README's example config
// does, the other maps to the VLAN group of its own name, which Nautobot
// has: both VLANs are planned and no leak claims the group is missing.
func TestPhysnetNotInPhysnetGroups(t *testing.T) {
	base := neutronURL(t)
	nbtest.Each(t, func(t *testing.T, srv *nbtest.Server) {
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
