package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/nautobot/emulator/emulatortest"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
)

// These tests run ipsync end to end against a real Neutron (and RabbitMQ,
// for the agent) and each Nautobot servertest gives: the emulator and the real
// servers the environment names. .ci/run starts them all.

func neutronURL(t testing.TB) string {
	u := os.Getenv("IPSYNC_NEUTRON_URL")
	if u == "" {
		t.Skip("set IPSYNC_NEUTRON_URL (scripts/neutron-up.sh start) to run")
	}
	return strings.TrimSuffix(u, "/")
}

// neutronCall sends one request to the real Neutron.
func neutronCall(t testing.TB, method, url string, in, out any) {
	t.Helper()
	var body bytes.Buffer
	if in != nil {
		if err := json.NewEncoder(&body).Encode(in); err != nil {
			t.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, url, &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, b.String())
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
}

// routedNetwork creates a network with one VLAN segment on each of site
// a11's leaf pairs and a subnet and a port on each segment.
func routedNetwork(t testing.TB, base, name string, vid12, vid13 int, net12, net13 string) string {
	t.Helper()
	return routedNetworkOn(t, base, name, "a11-12-network", "a11-13-network", vid12, vid13, net12, net13)
}

// deleteNetwork deletes a network and its ports in Neutron, as a person
// would. A Neutron on SQLite under load now and then answers a write with
// a 5xx (the database is locked) or refuses the network while a port
// delete is still settling (409): each delete is tried again for a while,
// and an error says what is left, so that a test waiting for ipsync to
// follow the delete does not wait on a delete that never happened.
func deleteNetwork(base, id string) error {
	var ports struct {
		Ports []struct {
			ID string `json:"id"`
		} `json:"ports"`
	}
	resp, err := http.Get(base + "/v2.0/ports?network_id=" + id)
	if err != nil {
		return fmt.Errorf("list the ports of network %s: %w", id, err)
	}
	_ = json.NewDecoder(resp.Body).Decode(&ports)
	resp.Body.Close()
	for _, p := range ports.Ports {
		if err := deleteUntilGone(base + "/v2.0/ports/" + p.ID); err != nil {
			return err
		}
	}
	return deleteUntilGone(base + "/v2.0/networks/" + id)
}

// deleteUntilGone deletes url until Neutron says it is gone (204 or 404),
// for up to half a minute.
func deleteUntilGone(url string) error {
	var last string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		req, _ := http.NewRequest(http.MethodDelete, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			last = err.Error()
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusNoContent || resp.StatusCode == http.StatusNotFound {
			return nil
		}
		last = fmt.Sprintf("%d %s", resp.StatusCode, body)
	}
	return fmt.Errorf("DELETE %s: still there after 30 s: %s", url, last)
}

// siteConfig writes a config with the examples as spec and site a11 on the
// real Neutron, against srv.
func siteConfig(t testing.TB, srv *servertest.Server, neutron, extra string) string {
	t.Helper()
	return targetSiteConfig(t, nautobotTarget(srv), neutron, extra)
}

// targetSiteConfig is siteConfig against a Nautobot or a NetBox.
func targetSiteConfig(t testing.TB, srv *target, neutron, extra string) string {
	t.Helper()
	return serverConfig(t, srv.section, srv.URL(), srv.Token(), srv.examples(t), fmt.Sprintf(`sites:
  - name: a11
    namespace: a11
    neutron: {auth: noauth, endpoint: %q}
%s`, neutron, extra))
}

// serverConfig writes a config with the spec at specPath (owner
// static:deploy), the server at url as its section (nautobot or netbox)
// with the token in a file, loopback allowed, and extra appended.
func serverConfig(t testing.TB, section, url, token, specPath, extra string) string {
	t.Helper()
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	return writeConfig(t, fmt.Sprintf(`spec: {name: deploy, paths: [%q]}
%s: {url: %q, token_file: %q}
allowed_hosts: [127.0.0.1]
%s`, specPath, section, url, tokenFile, extra))
}

// objectLister is what lists a server's objects: servertest.Server, target.
type objectLister interface {
	Objects(testing.TB, string) []map[string]any
}

// vlansOf lists the vids of the VLANs srv holds for owner.
func vlansOf(t testing.TB, srv objectLister, owner string) []string {
	t.Helper()
	return fieldOf(t, srv, "ipam.vlan", "vid", owner)
}

// fieldOf lists, sorted, one field of the objects of a kind srv holds for
// owner.
func fieldOf(t testing.TB, srv objectLister, kind, field, owner string) []string {
	t.Helper()
	var out []string
	for _, v := range srv.Objects(t, kind) {
		cf, _ := v["custom_fields"].(map[string]any)
		if cf["ipsync_owner"] != owner {
			continue
		}
		out = append(out, fmt.Sprint(v[field]))
	}
	slices.Sort(out)
	return out
}

// within counts the addresses ("172.30.12.5/24") inside the /24 of net
// ("172.30.12.0/24").
func within(addresses []string, net string) int {
	n := 0
	for _, a := range addresses {
		if strings.HasPrefix(a, strings.TrimSuffix(net, "0/24")) {
			n++
		}
	}
	return n
}

// mustRun runs ipsync and fails the test unless it succeeds. For plan and
// drift, finding changes (exit 2) is success too.
func mustRun(t testing.TB, args ...string) string {
	t.Helper()
	code, out, errOut := run(t, nil, args...)
	if code != ExitOK && (code != ExitChanges || (args[0] != "plan" && args[0] != "drift")) {
		t.Fatalf("ipsync %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// TestSiteSyncAgainstRealNeutron: static spec first (VLAN groups,
// namespace), then the site's dynamic objects, idempotence, and
// owner-scoped deletes after a network is removed from Neutron; on each
// Nautobot and on the real NetBox.
func TestSiteSyncAgainstRealNeutron(t *testing.T) {
	base := neutronURL(t)
	eachTarget(t, func(t *testing.T, srv *target) { siteSync(t, srv, base) })
}

func siteSync(t *testing.T, srv *target, base string) {
	cfg := targetSiteConfig(t, srv, base, "")
	mustRun(t, "bootstrap", "--config", cfg, "--commit")
	mustRun(t, "apply", "--config", cfg, "--commit")
	static := len(vlansOf(t, srv, "static:deploy"))
	if static == 0 {
		t.Fatal("apply of the examples wrote no VLANs")
	}
	// The examples round-trip: a plan right after the apply has nothing to
	// do and an apply writes nothing.
	srv.ResetCounts()
	if out := mustRun(t, "plan", "--config", cfg); !strings.Contains(out, "No changes") {
		t.Errorf("plan after applying the examples is not empty:\n%s", out)
	}
	mustRun(t, "apply", "--config", cfg, "--commit")
	if n := srv.Requests("POST", "/api/") + srv.Requests("PATCH", "/api/") + srv.Requests("DELETE", "/api/"); n != 0 {
		t.Errorf("second apply of the examples sent %d writes, want 0", n)
	}

	id := routedNetwork(t, base, fmt.Sprintf("e2e-%d", time.Now().UnixNano()%100000), 170, 171, "172.30.12.0/24", "172.30.13.0/24")
	out := mustRun(t, "plan", "--config", cfg, "--site", "a11")
	if !strings.Contains(out, "+ create vlan a11-12-network/170") || !strings.Contains(out, "+ create vlan a11-13-network/171") {
		t.Fatalf("site plan lacks one VLAN per segment of the routed network:\n%s", out)
	}
	mustRun(t, "apply", "--config", cfg, "--site", "a11", "--commit")
	if got := vlansOf(t, srv, "neutron:a11"); !slices.Contains(got, "170") || !slices.Contains(got, "171") {
		t.Fatalf("after apply, site VLANs = %v", got)
	}
	// Each segment's subnet is a prefix and its port's address an IP
	// address, all owned by the site.
	prefixes := fieldOf(t, srv, "ipam.prefix", "prefix", "neutron:a11")
	addresses := fieldOf(t, srv, "ipam.ipaddress", "address", "neutron:a11")
	for _, want := range []string{"172.30.12.0/24", "172.30.13.0/24"} {
		if !slices.Contains(prefixes, want) {
			t.Errorf("after apply, site prefixes = %v, want %s", prefixes, want)
		}
		if within(addresses, want) == 0 {
			t.Errorf("after apply, site IP addresses = %v, want the port's address in %s", addresses, want)
		}
	}
	srv.ResetCounts()
	if out := mustRun(t, "plan", "--config", cfg, "--site", "a11"); !strings.Contains(out, "No changes") {
		t.Errorf("site plan after the apply is not empty:\n%s", out)
	}
	mustRun(t, "apply", "--config", cfg, "--site", "a11", "--commit")
	for _, m := range []string{"POST", "PATCH", "DELETE"} {
		if n := srv.Requests(m, "/api/"); n != 0 {
			t.Errorf("second apply sent %d %s requests, want 0", n, m)
		}
	}

	// A hand edit of a site VLAN is put back by the site's next sync, with
	// one write.
	for _, v := range srv.Objects(t, "ipam.vlan") {
		if cf, _ := v["custom_fields"].(map[string]any); cf["ipsync_owner"] == "neutron:a11" && fmt.Sprint(v["vid"]) == "170" {
			srv.Call(t, "PATCH", "/api/ipam/vlans/"+fmt.Sprint(v["id"])+"/", map[string]any{"name": "renamed-by-hand"}, nil)
		}
	}
	if out := mustRun(t, "plan", "--config", cfg, "--site", "a11"); !strings.Contains(out, "~ update vlan a11-12-network/170") {
		t.Errorf("site plan after a hand edit of its VLAN lacks the update:\n%s", out)
	}
	srv.ResetCounts()
	mustRun(t, "apply", "--config", cfg, "--site", "a11", "--commit")
	if n := srv.Requests("PATCH", "/api/ipam/vlans/"); n != 1 {
		t.Errorf("putting back a hand-edited site VLAN sent %d PATCH requests, want 1", n)
	}
	if out := mustRun(t, "plan", "--config", cfg, "--site", "a11"); !strings.Contains(out, "No changes") {
		t.Errorf("site plan after putting the VLAN back is not empty:\n%s", out)
	}

	// Drift agrees, until someone edits a static VLAN by hand.
	if items := driftItems(t, cfg); len(items) != 0 {
		t.Errorf("drift after both applies = %v, want none", items)
	}
	for _, v := range srv.Objects(t, "ipam.vlan") {
		if cf, _ := v["custom_fields"].(map[string]any); cf["ipsync_owner"] == "static:deploy" && fmt.Sprint(v["vid"]) == "100" {
			srv.Call(t, "PATCH", "/api/ipam/vlans/"+fmt.Sprint(v["id"])+"/", map[string]any{"description": "edited by hand"}, nil)
		}
	}
	if items := driftItems(t, cfg); !slices.Contains(items, "static:deploy different vlan a11-12-network/100") {
		t.Errorf("drift after a hand edit = %v, want the edited VLAN as different", items)
	}

	if err := deleteNetwork(base, id); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "apply", "--config", cfg, "--site", "a11", "--commit", "--allow-mass-delete")
	if got := vlansOf(t, srv, "neutron:a11"); slices.Contains(got, "170") || slices.Contains(got, "171") {
		t.Errorf("after the network was deleted in Neutron, site VLANs = %v", got)
	}
	prefixes = fieldOf(t, srv, "ipam.prefix", "prefix", "neutron:a11")
	addresses = fieldOf(t, srv, "ipam.ipaddress", "address", "neutron:a11")
	for _, gone := range []string{"172.30.12.0/24", "172.30.13.0/24"} {
		if slices.Contains(prefixes, gone) || within(addresses, gone) != 0 {
			t.Errorf("after the network was deleted in Neutron, site prefixes = %v, IP addresses = %v; want none in %s", prefixes, addresses, gone)
		}
	}
	if got := len(vlansOf(t, srv, "static:deploy")); got != static {
		t.Errorf("the site's deletes touched static VLANs: %d -> %d", static, got)
	}
}

// TestAgentFollowsNotifications runs `ipsync agent` with a periodic interval
// far beyond the test, so only Neutron's notifications through RabbitMQ can
// make it reflect a new routed network, and then its deletion; on each
// Nautobot and on the real NetBox.
func TestAgentFollowsNotifications(t *testing.T) {
	base := neutronURL(t)
	amqp := os.Getenv("IPSYNC_RABBITMQ_URL")
	if amqp == "" || os.Getenv("IPSYNC_NEUTRON_NOTIFIES") == "" {
		t.Skip("set IPSYNC_RABBITMQ_URL and IPSYNC_NEUTRON_NOTIFIES=1 (a Neutron started with NEUTRON_NOTIFY_URL) to run")
	}
	eachTarget(t, func(t *testing.T, srv *target) { agentFollows(t, srv, base, amqp) })
}

func agentFollows(t *testing.T, srv *target, base, amqp string) {
	queue := fmt.Sprintf("ipsync-e2e-%d", time.Now().UnixNano())
	cfg := targetSiteConfig(t, srv, base, fmt.Sprintf(`policy: {max_delete_min: 50}
agent:
  listen: 127.0.0.1:0
  interval: 24h
  coalesce: 100ms
  rabbitmq: {url: %q, queue: %q}
`, amqp, queue))
	mustRun(t, "bootstrap", "--config", cfg, "--commit")
	mustRun(t, "apply", "--config", cfg, "--commit")

	agent := startAgent(t, cfg)
	// The first full reconcile has run once the lease tag exists and the
	// site's objects were read; give the consumer its queue binding first.
	agent.waitFor(t, "start its first reconcile", time.Minute, func() bool { return srv.Requests("GET", "/api/ipam/vlans/") > 0 })
	time.Sleep(2 * time.Second)

	id := routedNetwork(t, base, fmt.Sprintf("agent-%d", time.Now().UnixNano()%100000), 180, 181, "172.31.12.0/24", "172.31.13.0/24")
	nets := []string{"172.31.12.0/24", "172.31.13.0/24"}
	// synced counts what the site holds of the network: its two VLANs, the
	// prefixes of its subnets and the addresses of its ports.
	synced := func() (n int) {
		vlans := vlansOf(t, srv, "neutron:a11")
		prefixes := fieldOf(t, srv, "ipam.prefix", "prefix", "neutron:a11")
		addresses := fieldOf(t, srv, "ipam.ipaddress", "address", "neutron:a11")
		for i, vid := range []string{"180", "181"} {
			if slices.Contains(vlans, vid) {
				n++
			}
			if slices.Contains(prefixes, nets[i]) {
				n++
			}
			n += within(addresses, nets[i])
		}
		return n
	}
	agent.waitFor(t, "create the routed network's VLANs, prefixes and IP addresses", time.Minute, func() bool { return synced() == 6 })
	if err := deleteNetwork(base, id); err != nil {
		t.Fatal(err)
	}
	agent.waitFor(t, "delete the network's VLANs, prefixes and IP addresses", time.Minute, func() bool { return synced() == 0 })
	agent.stop(t, 30*time.Second)
}

// TestTwoSitesNeverTouchEachOther syncs two sites, each with its own real
// Neutron, into one Nautobot or NetBox; each site's writes and deletes stay
// within its own objects.
func TestTwoSitesNeverTouchEachOther(t *testing.T) {
	baseA := neutronURL(t)
	baseB := strings.TrimSuffix(os.Getenv("IPSYNC_NEUTRON_URL_B"), "/")
	if baseB == "" {
		t.Skip("set IPSYNC_NEUTRON_URL_B to a second Neutron (NEUTRON_PORT=9697 scripts/neutron-up.sh start) to run")
	}
	eachTarget(t, func(t *testing.T, srv *target) { twoSites(t, srv, baseA, baseB) })
}

func twoSites(t *testing.T, srv *target, baseA, baseB string) {
	cfg := targetSiteConfig(t, srv, baseA, fmt.Sprintf(`  - name: b22
    namespace: b22
    neutron: {auth: noauth, endpoint: %q}
`, baseB))
	mustRun(t, "bootstrap", "--config", cfg, "--commit")
	mustRun(t, "apply", "--config", cfg, "--commit")
	name := fmt.Sprintf("two-sites-%d", time.Now().UnixNano()%100000)
	idA := routedNetwork(t, baseA, name, 175, 176, "172.28.12.0/24", "172.28.13.0/24")
	// The same subnets on b22, in its own namespace: deleting them there
	// must leave a11's alone.
	idB := routedNetworkOn(t, baseB, name, "b22-1-network", "b22-2-network", 260, 261, "172.28.12.0/24", "172.28.13.0/24")
	// b22 keeps this one, for a11's deletes to leave alone.
	routedNetworkOn(t, baseB, name+"-kept", "b22-1-network", "b22-2-network", 262, 263, "172.27.3.0/24", "172.27.4.0/24")
	mustRun(t, "apply", "--config", cfg, "--site", "a11", "--commit")
	mustRun(t, "apply", "--config", cfg, "--site", "b22", "--commit")
	if got := vlansOf(t, srv, "neutron:a11"); !slices.Contains(got, "175") || !slices.Contains(got, "176") {
		t.Fatalf("site a11 VLANs = %v, want 175 and 176", got)
	}
	if got := vlansOf(t, srv, "neutron:b22"); !slices.Contains(got, "260") || !slices.Contains(got, "261") {
		t.Fatalf("site b22 VLANs = %v, want 260 and 261", got)
	}
	stamp := func(owner string) map[string]any {
		out := map[string]any{}
		for _, kind := range []string{"ipam.vlan", "ipam.prefix", "ipam.ipaddress"} {
			for _, o := range srv.Objects(t, kind) {
				if cf, _ := o["custom_fields"].(map[string]any); cf["ipsync_owner"] == owner {
					out[fmt.Sprint(o["id"])] = o["last_updated"]
				}
			}
		}
		return out
	}
	// untouched fails t if owner's objects differ from before: one more or
	// less, or one written since.
	untouched := func(owner string, before map[string]any, by string) {
		t.Helper()
		after := stamp(owner)
		if len(after) != len(before) {
			t.Fatalf("%s changed the number of %s's objects: %d -> %d", by, owner, len(before), len(after))
		}
		for id, v := range before {
			if after[id] != v {
				t.Errorf("%s wrote %s's object %s", by, owner, id)
			}
		}
	}
	beforeA := stamp("neutron:a11")

	// Site b22 loses its network; syncing b22 must not touch a11's objects.
	if err := deleteNetwork(baseB, idB); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "apply", "--config", cfg, "--site", "b22", "--commit", "--allow-mass-delete")
	if got := vlansOf(t, srv, "neutron:b22"); slices.Contains(got, "260") || slices.Contains(got, "261") || !slices.Contains(got, "262") {
		t.Errorf("site b22 VLANs after its network 260/261 was deleted = %v, want 262 and 263 only", got)
	}
	untouched("neutron:a11", beforeA, "site b22's apply")

	// And the other way round: a11's deletes leave b22's objects alone.
	beforeB := stamp("neutron:b22")
	if err := deleteNetwork(baseA, idA); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "apply", "--config", cfg, "--site", "a11", "--commit", "--allow-mass-delete")
	if got := vlansOf(t, srv, "neutron:a11"); slices.Contains(got, "175") || slices.Contains(got, "176") {
		t.Errorf("site a11 kept the VLANs of its deleted network: %v", got)
	}
	untouched("neutron:b22", beforeB, "site a11's apply")
}

// driftItems runs `ipsync drift` and lists its items as "owner drift kind key".
func driftItems(t *testing.T, cfg string) []string {
	t.Helper()
	var rep struct {
		Owners []struct {
			Owner string `json:"owner"`
			Error string `json:"error"`
			Items []struct {
				Kind, Key, Drift string
			} `json:"items"`
		} `json:"owners"`
	}
	_, out, errOut := run(t, nil, "drift", "--config", cfg, "-o", "json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("drift -o json: %v\n%s\n%s", err, out, errOut)
	}
	var items []string
	for _, o := range rep.Owners {
		if o.Error != "" {
			t.Fatalf("drift of %s: %s", o.Owner, o.Error)
		}
		for _, it := range o.Items {
			items = append(items, fmt.Sprintf("%s %s %s %s", o.Owner, it.Drift, it.Kind, it.Key))
		}
	}
	return items
}

// routedNetworkOn is routedNetwork on any two physical networks.
func routedNetworkOn(t testing.TB, base, name, phys1, phys2 string, vid1, vid2 int, net1, net2 string) string {
	t.Helper()
	var n struct {
		Network struct {
			ID string `json:"id"`
		} `json:"network"`
	}
	neutronCall(t, "POST", base+"/v2.0/networks", map[string]any{"network": map[string]any{"name": name, "segments": []map[string]any{
		{"provider:network_type": "vlan", "provider:physical_network": phys1, "provider:segmentation_id": vid1},
		{"provider:network_type": "vlan", "provider:physical_network": phys2, "provider:segmentation_id": vid2},
	}}}, &n)
	id := n.Network.ID
	t.Cleanup(func() { _ = deleteNetwork(base, id) })
	var segs struct {
		Segments []struct {
			ID              string `json:"id"`
			PhysicalNetwork string `json:"physical_network"`
		} `json:"segments"`
	}
	neutronCall(t, "GET", base+"/v2.0/segments?network_id="+id, nil, &segs)
	for _, sg := range segs.Segments {
		cidr := net1
		if sg.PhysicalNetwork == phys2 {
			cidr = net2
		}
		var sub struct {
			Subnet struct {
				ID string `json:"id"`
			} `json:"subnet"`
		}
		neutronCall(t, "POST", base+"/v2.0/subnets", map[string]any{"subnet": map[string]any{
			"network_id": id, "segment_id": sg.ID, "cidr": cidr, "ip_version": 4, "name": name + "-" + sg.PhysicalNetwork}}, &sub)
		neutronCall(t, "POST", base+"/v2.0/ports", map[string]any{"port": map[string]any{
			"network_id": id, "name": name + "-port-" + sg.PhysicalNetwork, "fixed_ips": []map[string]any{{"subnet_id": sub.Subnet.ID}}}}, nil)
	}
	return id
}

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func httpGet(url string) (int, string) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// TestAgentFaults: Nautobot answering 5xx and 429 in bursts loses nothing
// and duplicates nothing; a Neutron that cannot be reached is reported
// (readyz, metrics, status page) and deletes nothing.
func TestAgentFaults(t *testing.T) {
	base := neutronURL(t)
	// Faults are injected: the emulator alone.
	srv := servertest.Emulator(t)
	cfg := siteConfig(t, srv, base, "")
	mustRun(t, "bootstrap", "--config", cfg, "--commit")
	mustRun(t, "apply", "--config", cfg, "--commit")
	routedNetwork(t, base, fmt.Sprintf("faults-%d", time.Now().UnixNano()%100000), 185, 186, "172.26.12.0/24", "172.26.13.0/24")

	// Bursts of 503 on creates and 429 on reads while the site syncs.
	srv.Emulator().Inject(emulatortest.Fault{Method: "POST", PathPrefix: "/api/ipam/", Status: 503, Times: 3})
	srv.Emulator().Inject(emulatortest.Fault{Method: "GET", PathPrefix: "/api/ipam/vlans/", Status: 429, RetryAfter: 1, Times: 2})
	mustRun(t, "apply", "--config", cfg, "--site", "a11", "--commit")
	srv.Emulator().ClearFaults()
	count := map[string]int{}
	for _, v := range srv.Objects(t, "ipam.vlan") {
		count[fmt.Sprint(v["vid"])]++
	}
	if count["185"] != 1 || count["186"] != 1 {
		t.Errorf("after 5xx/429 bursts VLAN 185 x%d, 186 x%d; want each exactly once", count["185"], count["186"])
	}
	owned := len(vlansOf(t, srv, "neutron:a11"))

	// The same site against a Neutron nobody answers for.
	addr := freeAddr(t)
	down := siteConfig(t, srv, "http://"+freeAddr(t), fmt.Sprintf("agent:\n  listen: %s\n  interval: 24h\n", addr))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	var logs bytes.Buffer
	go func() {
		done <- Main(ctx, []string{"agent", "--config", down, "--site", "a11"}, func(string) string { return "" }, &logs, &logs)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, body := httpGet("http://" + addr + "/readyz")
		if code == http.StatusServiceUnavailable && strings.Contains(body, "neutron") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("readyz never reported neutron unreachable (last %d %q); log:\n%s", code, body, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, metrics := httpGet("http://" + addr + "/metrics"); !strings.Contains(metrics, `ipsync_condition{condition="neutron",site="a11"} 0`) {
		t.Errorf("metrics lack the failing neutron condition")
	}
	if _, page := httpGet("http://" + addr + "/"); !strings.Contains(page, "neutron") || strings.Contains(page, "<script") {
		t.Errorf("status page does not show the neutron condition")
	}
	if got := len(vlansOf(t, srv, "neutron:a11")); got != owned {
		t.Errorf("with Neutron unreachable the site's VLANs went from %d to %d", owned, got)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("agent exit %d; log:\n%s", code, logs.String())
	}
}

// TestSegmentRangesToNeutron: the spec's segment ranges of a site flow to its
// real Neutron with the plan / dry-run / --commit flow, and a second run
// changes nothing.
func TestSegmentRangesToNeutron(t *testing.T) {
	base := neutronURL(t)
	// Only Neutron is written; Nautobot is the emulator's.
	srv := servertest.Emulator(t)
	cfg := siteConfig(t, srv, base, "")
	raw, _ := os.ReadFile(cfg)
	_ = os.WriteFile(cfg, []byte(strings.Replace(string(raw), "    namespace: a11\n", "    namespace: a11\n    segment_ranges: true\n", 1)), 0o600)
	t.Cleanup(func() {
		// Leave the shared Neutron as it was: drop what this test created.
		var rs struct {
			Ranges []struct {
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"network_segment_ranges"`
		}
		neutronCall(t, "GET", base+"/v2.0/network_segment_ranges", nil, &rs)
		for _, r := range rs.Ranges {
			if strings.HasPrefix(r.Name, "a11-") {
				// Best effort: Neutron keeps a range that tenant networks use (409).
				req, _ := http.NewRequest(http.MethodDelete, base+"/v2.0/network_segment_ranges/"+r.ID, nil)
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}
		}
	})
	// A range another test run left behind may already exist (Neutron keeps
	// ranges that networks use), so the first plan is not asserted exactly.
	out := mustRun(t, "plan", "--config", cfg, "--site", "a11", "--target", "neutron")
	if !strings.Contains(out, "segment_range") || strings.Contains(out, "b22-") {
		t.Errorf("site a11's range plan:\n%s", out)
	}
	mustRun(t, "apply", "--config", cfg, "--site", "a11", "--target", "neutron", "--commit")
	if out := mustRun(t, "plan", "--config", cfg, "--site", "a11", "--target", "neutron"); !strings.Contains(out, "No changes") {
		t.Errorf("second range plan is not empty:\n%s", out)
	}
	var rs struct {
		Ranges []struct {
			Name    string   `json:"name"`
			Minimum int      `json:"minimum"`
			Maximum int      `json:"maximum"`
			Tags    []string `json:"tags"`
		} `json:"network_segment_ranges"`
	}
	neutronCall(t, "GET", base+"/v2.0/network_segment_ranges", nil, &rs)
	found := map[string]bool{}
	for _, r := range rs.Ranges {
		if slices.Contains(r.Tags, "ipsync_owner=static:deploy") {
			found[fmt.Sprintf("%s %d-%d", r.Name, r.Minimum, r.Maximum)] = true
		}
	}
	for _, want := range []string{"a11-12-tenant-vlans 150-199", "a11-13-tenant-vlans 150-199", "a11-vni 10000-19999"} {
		if !found[want] {
			t.Errorf("Neutron lacks the marked range %s (has %v)", want, found)
		}
	}
}

// editedCopy copies the YAML files of dir, each passed through edit, and
// returns the copy's folder.
func editedCopy(t testing.TB, dir string, edit func(string) string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no spec files in %s: %v", dir, err)
	}
	out := t.TempDir()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, filepath.Base(f)), []byte(edit(string(b))), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
