package events

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// neutronAPI calls a real Neutron (noauth, as scripts/neutron-up.sh runs it).
type neutronAPI struct {
	t    *testing.T
	base string
}

func (n neutronAPI) call(method, path string, in any, out any) {
	n.t.Helper()
	var body bytes.Buffer
	if in != nil {
		if err := json.NewEncoder(&body).Encode(in); err != nil {
			n.t.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, n.base+"/v2.0"+path, &body)
	if err != nil {
		n.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		n.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		n.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b.String())
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			n.t.Fatalf("%s %s: %v", method, path, err)
		}
	}
}

// create posts {kind: fields} to path and returns the new id.
func (n neutronAPI) create(path, kind string, fields map[string]any) string {
	n.t.Helper()
	var out map[string]struct {
		ID string `json:"id"`
	}
	n.call(http.MethodPost, path, map[string]any{kind: fields}, &out)
	return out[kind].ID
}

// A real Neutron gives a router interface and a floating IP their addresses
// without port notifications; what it sends instead reaches the consumer
// naming the network whose addresses changed.
func TestIntegrationNeutronAddressEvents(t *testing.T) {
	url := brokerURL(t)
	base := strings.TrimSuffix(os.Getenv("IPSYNC_NEUTRON_URL"), "/")
	if base == "" || os.Getenv("IPSYNC_NEUTRON_NOTIFIES") == "" {
		t.Skip("set IPSYNC_NEUTRON_URL and IPSYNC_NEUTRON_NOTIFIES=1 (a Neutron started with NEUTRON_NOTIFY_URL) to run")
	}
	r := startConsumer(t, testConfig(t, url, "addresses"))
	r.waitState(0, connected)

	n := neutronAPI{t: t, base: base}
	tag := fmt.Sprintf("ev-%d", time.Now().UnixNano()%100000)
	ext := n.create("/networks", "network", map[string]any{"name": tag + "-ext", "router:external": true,
		"provider:network_type": "flat", "provider:physical_network": tag})
	n.create("/subnets", "subnet", map[string]any{"network_id": ext, "cidr": "198.51.100.0/24", "ip_version": 4, "enable_dhcp": false})
	internal := n.create("/networks", "network", map[string]any{"name": tag + "-int", "provider:network_type": "vxlan"})
	sub := n.create("/subnets", "subnet", map[string]any{"network_id": internal, "cidr": "10.98.0.0/24", "ip_version": 4})
	router := n.create("/routers", "router", map[string]any{"name": tag, "external_gateway_info": map[string]any{"network_id": ext}})
	port := n.create("/ports", "port", map[string]any{"network_id": internal, "name": tag + "-vm"})
	var fip string
	t.Cleanup(func() {
		if fip != "" {
			n.call(http.MethodDelete, "/floatingips/"+fip, nil, nil)
		}
		n.call(http.MethodPut, "/routers/"+router+"/remove_router_interface", map[string]any{"subnet_id": sub}, nil)
		n.call(http.MethodDelete, "/routers/"+router, nil, nil)
		n.call(http.MethodDelete, "/ports/"+port, nil, nil)
		n.call(http.MethodDelete, "/networks/"+internal, nil, nil)
		n.call(http.MethodDelete, "/networks/"+ext, nil, nil)
	})
	n.call(http.MethodPut, "/routers/"+router+"/add_router_interface", map[string]any{"subnet_id": sub}, nil)
	fip = n.create("/floatingips", "floatingip", map[string]any{"floating_network_id": ext, "port_id": port})

	want := map[string][]string{ // resource -> the networks it must name
		Router:          {ext},
		RouterInterface: {internal},
		FloatingIP:      {ext},
	}
	ours := idSet{router: true, fip: true}
	deadline := time.After(waitLimit)
	for len(want) > 0 {
		select {
		case ev := <-r.out:
			if !slices.ContainsFunc(ev.IDs, func(id string) bool { return ours[id] }) {
				continue
			}
			w, ok := want[ev.Resource]
			if !ok {
				continue
			}
			if !slices.Equal(ev.NetworkIDs, w) {
				t.Errorf("%s: NetworkIDs = %v, want %v", ev.Type, ev.NetworkIDs, w)
			}
			delete(want, ev.Resource)
		case <-deadline:
			t.Fatalf("no notification for %v", want)
		}
	}
}
