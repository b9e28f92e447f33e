package neutron

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"
)

// reportAgent reports a bare-metal node's agent state to the test server
// (scripts/neutron-up.sh report-agent), as networking-baremetal's agent
// does for each node, and skips the test unless the server binds
// bare-metal ports.
func reportAgent(t *testing.T, a *admin, base, node string, physnets ...string) {
	t.Helper()
	in := &admin{t: t, base: base, http: a.http}
	var out struct {
		MechanismDrivers []string `json:"mechanism_drivers"`
	}
	// The first report only learns whether the server takes them: call
	// fails the test on any error it decodes.
	code := in.call(http.MethodPost, "/test-rpc/report-state", map[string]any{"host": node, "physical_networks": physnets}, nil)
	if code == http.StatusNotFound {
		t.Skip("the Neutron at IPSYNC_NEUTRON_BAREMETAL_URL takes no agent reports: start it with scripts/neutron-up.sh and NEUTRON_MECH_DRIVERS=baremetal")
	}
	in.call(http.MethodPost, "/test-rpc/report-state", map[string]any{"host": node, "physical_networks": physnets}, &out)
	if !slices.Contains(out.MechanismDrivers, "baremetal") {
		t.Skipf("the Neutron at IPSYNC_NEUTRON_BAREMETAL_URL binds no bare-metal ports (mechanism drivers %v): start it with NEUTRON_MECH_DRIVERS=baremetal scripts/neutron-up.sh start", out.MechanismDrivers)
	}
	t.Cleanup(func() {
		var agents struct{ Agents []map[string]any }
		a.call(http.MethodGet, "/agents?host="+node, nil, &agents)
		for _, ag := range agents.Agents {
			a.remove("agents", str(ag, "id"))
		}
	})
}

// TestRealLeakedSegmentPerPhysnet: a routed network with a segment on each
// of two leaf pairs and a bare-metal node on each, whose ports
// networking-baremetal binds to their leaf's segment; one node's port is
// then unbound (its address stays on its leaf's subnet, so the rule of
// "any port on the network" saw nothing). Its segment is leaked once the
// grace period is over, and the other leaf's, whose port is bound, never.
func TestRealLeakedSegmentPerPhysnet(t *testing.T) {
	base := realBaremetalNeutron(t)
	a := newAdmin(t, base)
	run := newRunID()
	node12, node13 := run.name+"-node-12", run.name+"-node-13"
	reportAgent(t, a, base, node12, "a11-12-network")
	reportAgent(t, a, base, node13, "a11-13-network")

	// networking-baremetal 6.0.0 fails a network created with several
	// segments at once: one segment, then the other through /segments.
	net := a.create("networks", map[string]any{"name": run.name + "-bm",
		"provider:network_type": "vlan", "provider:physical_network": "a11-12-network"})
	var segs struct{ Segments []map[string]any }
	a.call(http.MethodGet, "/segments?network_id="+str(net, "id"), nil, &segs)
	if len(segs.Segments) != 1 {
		t.Fatalf("network segments %v, want one", segs.Segments)
	}
	seg12 := segs.Segments[0]
	seg13 := a.create("segments", map[string]any{"network_id": str(net, "id"), "network_type": "vlan", "physical_network": "a11-13-network"})
	rs := &realSite{run: run}
	sn := map[string]map[string]any{}
	for leaf, seg := range map[string]map[string]any{"12": seg12, "13": seg13} {
		third := 120 + len(sn)
		sn[leaf] = a.create("subnets", map[string]any{"network_id": str(net, "id"), "segment_id": str(seg, "id"),
			"ip_version": 4, "cidr": rs.v4(third) + ".0/24", "enable_dhcp": false})
	}
	bmPort := func(leaf, node string) map[string]any {
		return a.create("ports", map[string]any{"network_id": str(net, "id"), "name": run.name + "-bm-" + leaf,
			"binding:vnic_type": "baremetal", "binding:host_id": node,
			"binding:profile": map[string]any{"local_link_information": []map[string]string{
				{"switch_id": "aa:bb:cc:dd:ee:" + leaf, "port_id": "Ethernet1/" + leaf, "switch_info": "leaf" + leaf}}}})
	}
	p12, p13 := bmPort("12", node12), bmPort("13", node13)
	for _, p := range []map[string]any{p12, p13} {
		if str(p, "binding:vif_type") != "other" {
			t.Fatalf("port %s binding:vif_type = %q, want other (bound by networking-baremetal)", str(p, "name"), str(p, "binding:vif_type"))
		}
	}
	// Ironic unbinds a node's port on undeploy by clearing its host.
	var upd struct{ Port map[string]any }
	a.call(http.MethodPut, "/ports/"+str(p13, "id"), map[string]any{"port": map[string]any{"binding:host_id": ""}}, &upd)
	if str(upd.Port, "binding:vif_type") != VIFUnbound {
		t.Fatalf("port after unbinding: binding:vif_type = %q, want unbound", str(upd.Port, "binding:vif_type"))
	}

	ctx := context.Background()
	r := readerOf(t, base)
	snap, err := r.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range snap.Ports {
		switch p.ID {
		case str(p12, "id"):
			if p.VIFType != "other" || !slices.Equal(p.Physnets, []string{"a11-12-network"}) {
				t.Errorf("bound port read as vif type %q on %v, want other on [a11-12-network] (its node's agent)", p.VIFType, p.Physnets)
			}
		case str(p13, "id"):
			if p.VIFType != VIFUnbound || len(p.FixedIPs) != 1 || p.FixedIPs[0].SubnetID != str(sn["13"], "id") {
				t.Errorf("unbound port read as vif type %q with %v, want unbound, its address still on leaf 13's subnet", p.VIFType, p.FixedIPs)
			}
		}
	}

	tests := []struct {
		name  string
		later time.Duration // how long after the read the rule looks
		want  []string
	}{
		{name: "just unbound: within the grace period", want: nil},
		{name: "after the grace period: the unbound node's segment", later: DefaultLeakGrace + time.Minute, want: []string{str(seg13, "id")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := *snap
			s.ReadAt = snap.ReadAt.Add(tt.later)
			_, report := Map(&s, MapConfig{Site: "it"})
			var got []string
			for _, u := range report.UnusedSegments {
				if u.NetworkID == str(net, "id") {
					got = append(got, u.SegmentID)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("leaked segments of the network = %v, want %v (leaf 12's is %s, leaf 13's %s)", got, tt.want, str(seg12, "id"), str(seg13, "id"))
			}
			// Neutron allocated both VIDs to segments: neither is unheld.
			for _, u := range report.UnheldAllocations {
				for _, seg := range []map[string]any{seg12, seg13} {
					if u.PhysicalNetwork == str(seg, "physical_network") && slices.Contains(u.SegmentationIDs, num(seg, "segmentation_id")) {
						t.Errorf("range %s reports VID %d unheld, but segment %s holds it", u.RangeID, num(seg, "segmentation_id"), str(seg, "id"))
					}
				}
			}
		})
	}
}
