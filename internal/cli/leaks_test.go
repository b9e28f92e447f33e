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

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
)

// TestLeaksReachEveryOutput: what a site's Neutron holds that nothing
// accounts for (a VLAN segment without ports, a segment range made by
// hand) is in plan -o json, in the saved plan, in apply's output and in
// drift, segment ranges included.
func TestLeaksReachEveryOutput(t *testing.T) {
	base := neutronURL(t)
	eachNautobot(t, func(t *testing.T, srv *servertest.Server) { leaksEverywhere(t, srv, base) })
}

// planLeaks is the leaks list of a plan or drift owner document.
type planLeaks struct {
	Leaks []struct{ Kind, Key, Message string } `json:"leaks"`
}

func (p planLeaks) has(kind, keyPart string) bool {
	for _, l := range p.Leaks {
		if l.Kind == kind && strings.Contains(l.Key, keyPart) {
			return true
		}
	}
	return false
}

func leaksEverywhere(t *testing.T, srv *servertest.Server, base string) {
	cfg := siteConfig(t, srv, base, "")
	raw, _ := os.ReadFile(cfg)
	_ = os.WriteFile(cfg, []byte(strings.Replace(string(raw), "    namespace: a11\n", "    namespace: a11\n    segment_ranges: true\n", 1)), 0o600)
	mustRun(t, "bootstrap", "--config", cfg, "--commit")
	mustRun(t, "apply", "--config", cfg, "--commit")

	stamp := time.Now().UnixNano() % 100000
	// A tenant network whose VLAN segment has no port: a leak of the site.
	net := fmt.Sprintf("leak-%d", stamp)
	var n struct {
		Network struct {
			ID string `json:"id"`
		} `json:"network"`
	}
	neutronCall(t, "POST", base+"/v2.0/networks", map[string]any{"network": map[string]any{"name": net,
		"provider:network_type": "vlan", "provider:physical_network": "a11-12-network", "provider:segmentation_id": 166}}, &n)
	t.Cleanup(func() { _ = deleteNetwork(base, n.Network.ID) })
	// A segment range made by hand: a leak where the spec's ranges go.
	rng := fmt.Sprintf("handmade-%d", stamp)
	var r struct {
		Range struct {
			ID string `json:"id"`
		} `json:"network_segment_range"`
	}
	neutronCall(t, "POST", base+"/v2.0/network_segment_ranges", map[string]any{"network_segment_range": map[string]any{
		"name": rng, "network_type": "vxlan", "minimum": 60001, "maximum": 60010, "shared": true}}, &r)
	t.Cleanup(func() {
		req, _ := http.NewRequest(http.MethodDelete, base+"/v2.0/network_segment_ranges/"+r.Range.ID, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	})

	for _, tt := range []struct {
		name, kind, key string
		args            []string
	}{
		{"site plan", "segment", net, []string{"plan", "--config", cfg, "--site", "a11"}},
		{"range plan", "segment_range", rng, []string{"plan", "--config", cfg, "--site", "a11", "--target", "neutron"}},
	} {
		var doc planLeaks
		out := mustRun(t, append(tt.args, "-o", "json")...)
		if err := json.Unmarshal([]byte(out), &doc); err != nil || !doc.has(tt.kind, tt.key) {
			t.Errorf("%s -o json: leaks %+v lack %s %s (%v)", tt.name, doc.Leaks, tt.kind, tt.key, err)
		}
		saved := filepath.Join(t.TempDir(), "plan.json")
		text := mustRun(t, append(tt.args, "--out", saved)...)
		if !strings.Contains(text, tt.key) {
			t.Errorf("%s text lacks the leak %s:\n%s", tt.name, tt.key, text)
		}
		b, _ := os.ReadFile(saved)
		doc = planLeaks{}
		if err := json.Unmarshal(b, &doc); err != nil || !doc.has(tt.kind, tt.key) {
			t.Errorf("%s saved plan: leaks %+v lack %s %s (%v)", tt.name, doc.Leaks, tt.kind, tt.key, err)
		}
		for _, apply := range [][]string{{"apply", "--config", cfg, "--plan", saved}, append([]string{"apply"}, tt.args[1:]...)} {
			code, out, errOut := run(t, nil, apply...)
			if code != ExitOK || !strings.Contains(out+errOut, tt.key) {
				t.Errorf("ipsync %s = exit %d, does not show the leak %s:\n%s\n%s", strings.Join(apply, " "), code, tt.key, out, errOut)
			}
		}
	}

	var rep struct {
		Owners []struct {
			Owner  string `json:"owner"`
			Target string `json:"target"`
			planLeaks
		} `json:"owners"`
	}
	out := mustRun(t, "drift", "--config", cfg, "-o", "json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, o := range rep.Owners {
		found[o.Owner+" in "+o.Target+": segment"] = found[o.Owner+" in "+o.Target+": segment"] || o.has("segment", net)
		found[o.Owner+" in "+o.Target+": range"] = found[o.Owner+" in "+o.Target+": range"] || o.has("segment_range", rng)
	}
	for _, want := range []string{"neutron:a11 in : segment", "static:deploy in neutron:a11: range"} {
		if !found[want] {
			t.Errorf("drift lacks %s; report:\n%s", want, out)
		}
	}
	text := mustRun(t, "drift", "--config", cfg)
	if !strings.Contains(text, "static:deploy (in neutron:a11): ") || !strings.Contains(text, rng) {
		t.Errorf("drift text lacks the spec's ranges in Neutron:\n%s", text)
	}
}

// TestNeutronVIDOutsideItsGroup: a VLAN from Neutron outside its group's
// range refuses the site's plan, and the message sends the operator to
// Neutron or the group's range, not to the spec's objects.
func TestNeutronVIDOutsideItsGroup(t *testing.T) {
	base := neutronURL(t)
	eachNautobot(t, func(t *testing.T, srv *servertest.Server) {
		cfg := siteConfig(t, srv, base, "")
		mustRun(t, "bootstrap", "--config", cfg, "--commit")
		mustRun(t, "apply", "--config", cfg, "--commit")
		// An admin may put a provider network on any VID of a physnet;
		// a11-12-network's group in the examples takes 100-199,300-310.
		var n struct {
			Network struct {
				ID string `json:"id"`
			} `json:"network"`
		}
		neutronCall(t, "POST", base+"/v2.0/networks", map[string]any{"network": map[string]any{"name": fmt.Sprintf("vid-range-%d", time.Now().UnixNano()%100000),
			"provider:network_type": "vlan", "provider:physical_network": "a11-12-network", "provider:segmentation_id": 251}}, &n)
		t.Cleanup(func() { _ = deleteNetwork(base, n.Network.ID) })

		code, out, errOut := run(t, nil, "plan", "--config", cfg, "--site", "a11")
		all := out + errOut
		if code != ExitRefused || !strings.Contains(all, "vid 251 is outside range 100-199,300-310 of VLAN group a11-12-network") {
			t.Fatalf("site plan with VID 251 = exit %d:\n%s\n%s", code, out, errOut)
		}
		for _, want := range []string{"move the segment in a11's Neutron", "widen the group's range", "from site a11's Neutron"} {
			if !strings.Contains(all, want) {
				t.Errorf("refusal lacks %q:\n%s", want, all)
			}
		}
		if strings.Contains(all, "create the objects in Nautobot") || strings.Contains(all, "fix the spec") {
			t.Errorf("refusal of Neutron data points at the spec's objects:\n%s", all)
		}
	})
}
