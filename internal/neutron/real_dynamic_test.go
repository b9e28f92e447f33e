package neutron

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"
)

// hierarchicalHost is the host Neutron's own test mechanism driver binds
// hierarchically: under a network's "local" top segment it allocates a
// dynamic VLAN segment on physnet1 and binds the port's second level
// there, as a top-of-rack driver of a bare-metal fabric does.
const hierarchicalHost = "host-hierarchical"

// TestRealLeakedDynamicSegment: a port bound through hierarchical port
// binding gets a dynamic VLAN segment Neutron allocates for it; unbound,
// the port leaves the segment behind (the driver, like the ones the
// fabric's operators run into, does not release it), holding its VID.
// The rule does not name it while the port is bound, nor within the grace
// period after the port left, and names it after.
func TestRealLeakedDynamicSegment(t *testing.T) {
	base := realHierarchicalNeutron(t)
	a := newAdmin(t, base)
	run := newRunID()

	// The probe is the network itself: a Neutron without the local type
	// refuses it.
	code := a.call(http.MethodPost, "/networks", map[string]any{"network": map[string]any{"name": run.name + "-dyn", "provider:network_type": "local"}}, nil)
	if code != http.StatusCreated {
		t.Skipf("the Neutron at IPSYNC_NEUTRON_HIERARCHICAL_URL makes no local networks (%d): start it with NEUTRON_TYPE_DRIVERS including local and NEUTRON_MECH_DRIVERS including test", code)
	}
	var found struct{ Networks []map[string]any }
	a.call(http.MethodGet, "/networks?name="+run.name+"-dyn", nil, &found)
	if len(found.Networks) != 1 {
		t.Fatalf("networks named %s-dyn: %d, want the one made", run.name, len(found.Networks))
	}
	net := found.Networks[0]
	t.Cleanup(func() { a.remove("networks", str(net, "id")) })
	a.create("subnets", map[string]any{"network_id": str(net, "id"), "ip_version": 4, "cidr": (&realSite{run: run}).v4(130) + ".0/24", "enable_dhcp": false})
	port := a.create("ports", map[string]any{"network_id": str(net, "id"), "name": run.name + "-dyn-port", "binding:host_id": hierarchicalHost})
	if str(port, "binding:vif_type") == VIFBindingFailed || str(port, "binding:vif_type") == VIFUnbound {
		t.Skipf("the Neutron at IPSYNC_NEUTRON_HIERARCHICAL_URL binds no port on %s (vif type %q): start it with NEUTRON_MECH_DRIVERS including test and a VLAN range on physnet1",
			hierarchicalHost, str(port, "binding:vif_type"))
	}
	dynamic := dynamicSegment(t, a, str(net, "id"))
	if dynamic == nil {
		t.Fatalf("port bound (vif type %q) but its network has no VLAN segment on physnet1", str(port, "binding:vif_type"))
	}

	ctx := context.Background()
	r := readerOf(t, base)
	leaked := func(later time.Duration) []string {
		t.Helper()
		snap, err := r.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		snap.ReadAt = snap.ReadAt.Add(later)
		_, report := Map(snap, MapConfig{Site: "it"})
		var got []string
		for _, u := range report.UnusedSegments {
			if u.NetworkID == str(net, "id") {
				got = append(got, u.SegmentID)
			}
		}
		return got
	}
	if got := leaked(DefaultLeakGrace + time.Minute); len(got) > 0 {
		t.Errorf("while the port is bound, leaked segments %v; want none", got)
	}

	var upd struct{ Port map[string]any }
	a.call(http.MethodPut, "/ports/"+str(port, "id"), map[string]any{"port": map[string]any{"binding:host_id": ""}}, &upd)
	if str(upd.Port, "binding:vif_type") != VIFUnbound {
		t.Fatalf("port after unbinding: vif type %q, want unbound", str(upd.Port, "binding:vif_type"))
	}
	if dynamicSegment(t, a, str(net, "id")) == nil {
		t.Skip("Neutron released the dynamic segment when its port left: nothing is left behind to report")
	}
	if got := leaked(0); len(got) > 0 {
		t.Errorf("just unbound, within the grace period: leaked %v, want none", got)
	}
	if got, want := leaked(DefaultLeakGrace+time.Minute), []string{str(dynamic, "id")}; !slices.Equal(got, want) {
		t.Errorf("after the grace period: leaked %v, want the dynamic segment %v (VLAN %d on physnet1)", got, want, num(dynamic, "segmentation_id"))
	}
}

// dynamicSegment is the network's VLAN segment on physnet1, or nil.
func dynamicSegment(t *testing.T, a *admin, network string) map[string]any {
	t.Helper()
	var segs struct{ Segments []map[string]any }
	a.call(http.MethodGet, "/segments?network_id="+network, nil, &segs)
	for _, s := range segs.Segments {
		if str(s, "network_type") == "vlan" && str(s, "physical_network") == "physnet1" {
			return s
		}
	}
	return nil
}
