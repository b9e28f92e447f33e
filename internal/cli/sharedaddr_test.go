package cli

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
)

// TestNetworksNamedAlikeShareAddresses: two projects' networks named
// "private" on one physical network, with the same CIDR and the same port
// address, sync completely and the agent becomes ready; deleting one
// through Neutron, with the agent following notifications, removes exactly
// its own objects and nothing the other still has.
func TestNetworksNamedAlikeShareAddresses(t *testing.T) {
	base := neutronURL(t)
	amqp := os.Getenv("IPSYNC_RABBITMQ_URL")
	if amqp == "" || os.Getenv("IPSYNC_NEUTRON_NOTIFIES") == "" {
		t.Skip("set IPSYNC_RABBITMQ_URL and IPSYNC_NEUTRON_NOTIFIES=1 (a Neutron started with NEUTRON_NOTIFY_URL) to run")
	}
	eachNautobot(t, func(t *testing.T, srv *servertest.Server) { networksNamedAlike(t, srv, base, amqp) })
}

// privateNetwork creates a network named "private" of project with a
// subnet cidr and a port on each of addrs; it returns the network's id and
// the name of its VLAN.
func privateNetwork(t *testing.T, base, project string, vid int, cidr string, addrs ...string) (string, string) {
	t.Helper()
	var n struct {
		Network struct {
			ID string `json:"id"`
		} `json:"network"`
	}
	neutronCall(t, "POST", base+"/v2.0/networks", map[string]any{"network": map[string]any{"name": "private", "project_id": project,
		"provider:network_type": "vlan", "provider:physical_network": "a11-12-network", "provider:segmentation_id": vid}}, &n)
	id := n.Network.ID
	t.Cleanup(func() { _ = deleteNetwork(base, id) })
	var sub struct {
		Subnet struct {
			ID string `json:"id"`
		} `json:"subnet"`
	}
	neutronCall(t, "POST", base+"/v2.0/subnets", map[string]any{"subnet": map[string]any{"network_id": id, "project_id": project,
		"cidr": cidr, "ip_version": 4, "enable_dhcp": false, "name": "private-" + project}}, &sub)
	for _, a := range addrs {
		neutronCall(t, "POST", base+"/v2.0/ports", map[string]any{"port": map[string]any{"network_id": id, "project_id": project,
			"name": "vm-" + project, "fixed_ips": []map[string]any{{"subnet_id": sub.Subnet.ID, "ip_address": a}}}}, nil)
	}
	var segs struct {
		Segments []struct {
			ID string `json:"id"`
		} `json:"segments"`
	}
	neutronCall(t, "GET", base+"/v2.0/segments?network_id="+id, nil, &segs)
	if len(segs.Segments) != 1 {
		t.Fatalf("network %s has segments %+v, want one", id, segs.Segments)
	}
	return id, "private-" + segs.Segments[0].ID[:8]
}

// siteObjects are the keys of what owner has in srv under the test's
// VLANs and address space: "vlan 170 <name>", "prefix 10.77.0.0/24",
// "ip 10.77.0.5/24".
func siteObjects(t *testing.T, srv *servertest.Server, owner string) []string {
	t.Helper()
	var out []string
	mine := func(o map[string]any) bool {
		cf, _ := o["custom_fields"].(map[string]any)
		return cf["ipsync_owner"] == owner
	}
	for _, v := range srv.Objects(t, "ipam.vlan") {
		if vid := fmt.Sprint(v["vid"]); mine(v) && (vid == "170" || vid == "171") {
			out = append(out, fmt.Sprintf("vlan %s %s", vid, v["name"]))
		}
	}
	for _, p := range srv.Objects(t, "ipam.prefix") {
		if s := fmt.Sprint(p["prefix"]); mine(p) && strings.HasPrefix(s, "10.77.") {
			out = append(out, "prefix "+s)
		}
	}
	for _, ip := range srv.Objects(t, "ipam.ipaddress") {
		if s := fmt.Sprint(ip["address"]); mine(ip) && strings.HasPrefix(s, "10.77.") {
			out = append(out, "ip "+s)
		}
	}
	slices.Sort(out)
	return out
}

func networksNamedAlike(t *testing.T, srv *servertest.Server, base, amqp string) {
	listen := freeAddr(t)
	queue := fmt.Sprintf("ipsync-alike-%d", time.Now().UnixNano())
	cfg := siteConfig(t, srv, base, fmt.Sprintf(`policy: {max_delete_min: 50}
agent:
  listen: %s
  interval: 24h
  coalesce: 100ms
  rabbitmq: {url: %q, queue: %q}
`, listen, amqp, queue))
	mustRun(t, "bootstrap", "--config", cfg, "--commit")
	mustRun(t, "apply", "--config", cfg, "--commit")

	// Project a's network goes; its prefix and address at .5 are also b's.
	gone, goneName := privateNetwork(t, base, "project-a", 170, "10.77.0.0/24", "10.77.0.5", "10.77.0.7")
	_, staysName := privateNetwork(t, base, "project-b", 171, "10.77.0.0/24", "10.77.0.5", "10.77.0.6")
	const goneVID, staysVID, goneOnly, staysOnly = 170, 171, "10.77.0.7/24", "10.77.0.6/24"

	agent := startAgent(t, cfg)
	all := []string{
		fmt.Sprintf("vlan %d %s", staysVID, staysName), fmt.Sprintf("vlan %d %s", goneVID, goneName),
		"prefix 10.77.0.0/24", "ip 10.77.0.5/24", "ip " + goneOnly, "ip " + staysOnly,
	}
	slices.Sort(all)
	agent.waitFor(t, "become ready", 90*time.Second, func() bool { code, _ := httpGet("http://" + agent.listen + "/readyz"); return code == 200 })
	if got := siteObjects(t, srv, "neutron:a11"); !slices.Equal(got, all) {
		t.Fatalf("after the first sync: %q, want %q; agent log:\n%s", got, all, agent.logs.String())
	}
	// Let the consumer bind its queue before the network goes.
	time.Sleep(2 * time.Second)

	if err := deleteNetwork(base, gone); err != nil {
		t.Fatal(err)
	}
	want := slices.DeleteFunc(slices.Clone(all), func(k string) bool {
		return strings.HasPrefix(k, fmt.Sprintf("vlan %d ", goneVID)) || k == "ip "+goneOnly
	})
	agent.waitFor(t, "delete the network's own objects", 90*time.Second, func() bool { return slices.Equal(siteObjects(t, srv, "neutron:a11"), want) })
	// The shared prefix now comes from the network that stays.
	for _, p := range srv.Objects(t, "ipam.prefix") {
		if fmt.Sprint(p["prefix"]) == "10.77.0.0/24" && fmt.Sprint(p["description"]) != "private-project-b" {
			t.Errorf("shared prefix description = %v, want the remaining network's subnet", p["description"])
		}
	}
	if code, body := httpGet("http://" + agent.listen + "/readyz"); code != 200 {
		t.Errorf("readyz after the delete = %d %s", code, body)
	}
	agent.stop(t, 30*time.Second)
	if got := siteObjects(t, srv, "neutron:a11"); !slices.Equal(got, want) {
		t.Errorf("after the delete: %q, want %q", got, want)
	}
}
