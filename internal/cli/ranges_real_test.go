package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/browsertest"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
)

// TestAgentRangeHealthOnNeutron fills a small VNI range of the real
// Neutron through its API, half and then to 90%, while the agent syncs
// the site: ipsync_range_used_ratio follows, and the status page, which
// did not show the range at half, shows it at 90% (screenshot, with
// IPSYNC_CHROMIUM). A VNI range: its networks need no subnet nor VLAN
// group, so the plan has nothing in the way.
func TestAgentRangeHealthOnNeutron(t *testing.T) {
	base := neutronURL(t)
	eachNautobot(t, func(t *testing.T, srv *servertest.Server) { rangeHealthOnNeutron(t, srv, base) })
}

func rangeHealthOnNeutron(t *testing.T, srv *servertest.Server, base string) {
	cfg := siteConfig(t, srv, base, `policy: {max_delete_min: 50}
agent:
  interval: 2s
  lease_ttl: 9s
  lease_renew: 3s
`)
	mustRun(t, "bootstrap", "--config", cfg, "--commit")
	mustRun(t, "apply", "--config", cfg, "--commit")

	// VNIs outside the ML2 config's 1:1000, and a name of this run's.
	tag := time.Now().UnixNano() % 1000000
	first := 600000 + int(tag%1000)*10
	name := fmt.Sprintf("ranges-test-%d", tag)
	var rg struct {
		Range struct {
			ID string `json:"id"`
		} `json:"network_segment_range"`
	}
	neutronCall(t, http.MethodPost, base+"/v2.0/network_segment_ranges", map[string]any{"network_segment_range": map[string]any{
		"name": name, "network_type": "vxlan", "minimum": first, "maximum": first + 9, "shared": true}}, &rg)
	t.Cleanup(func() {
		if err := deleteUntilGone(base + "/v2.0/network_segment_ranges/" + rg.Range.ID); err != nil {
			t.Error(err)
		}
	})
	fill := func(from, to int) {
		for vni := first + from; vni < first+to; vni++ {
			var n struct {
				Network struct {
					ID string `json:"id"`
				} `json:"network"`
			}
			neutronCall(t, http.MethodPost, base+"/v2.0/networks", map[string]any{"network": map[string]any{
				"name": fmt.Sprintf("%s-%d", name, vni), "provider:network_type": "vxlan", "provider:segmentation_id": vni}}, &n)
			t.Cleanup(func() {
				if err := deleteNetwork(base, n.Network.ID); err != nil {
					t.Error(err)
				}
			})
		}
	}
	series := fmt.Sprintf(`ipsync_range_used_ratio{kind="vxlan",range=%q,site="a11"}`, name)

	fill(0, 5)
	a := startAgent(t, cfg)
	a.waitFor(t, "count the range half used", time.Minute, func() bool { return a.metric(t, series) == "0.5" })
	if h, ok := a.rangeHealth(t, name); !ok || h.Used != 5 || h.Size != 10 {
		t.Errorf("status.json: range %s = %+v, %v; want 5 of 10 used", name, h, ok)
	}
	if _, page := httpGet("http://" + a.listen + "/"); strings.Contains(page, name) {
		t.Errorf("the status page shows %s at half, under the threshold (0.8)", name)
	}

	fill(5, 9)
	a.waitFor(t, "count the range 90% used", time.Minute, func() bool { return a.metric(t, series) == "0.9" })
	_, page := httpGet("http://" + a.listen + "/")
	for _, want := range []string{"Ranges used 80% or more", "<code>" + name + "</code>", "9 (90%)"} {
		if !strings.Contains(page, want) {
			t.Errorf("the status page lacks %q", want)
		}
	}
	// ipsync drift counts on its own reads: how full, without a rate.
	out := mustRun(t, "drift", "--config", cfg, "--site", "a11", "-o", "json")
	var rep struct {
		Ranges struct {
			Above []rangeRow `json:"above"`
		} `json:"ranges"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("drift -o json: %v\n%s", err, out)
	}
	if !slices.ContainsFunc(rep.Ranges.Above, func(r rangeRow) bool { return r.Range == name && r.Used == 9 }) {
		t.Errorf("drift -o json: ranges above the threshold %+v lack %s at 9 of 10", rep.Ranges.Above, name)
	}
	t.Run("status page in a browser", func(t *testing.T) {
		chromium := browsertest.New(t)
		dom := chromium.DOM(t, "http://"+a.listen+"/")
		if !strings.Contains(dom, "<code>"+name+"</code>") || !strings.Contains(dom, "9 (90%)") {
			t.Errorf("the browser's status page lacks the range at 90%%:\n%s", dom)
		}
		chromium.Screenshot(t, "http://"+a.listen+"/", "range-90-percent-"+srv.Name)
	})
}

// metric is the value of one series on the agent's /metrics, as written
// there; "" when it is not.
func (a *runningAgent) metric(t *testing.T, series string) string {
	t.Helper()
	_, body := httpGet("http://" + a.listen + "/metrics")
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			return v
		}
	}
	return ""
}

// rangeHealth is one range as the agent's status.json has it.
func (a *runningAgent) rangeHealth(t *testing.T, name string) (rangeRow, bool) {
	t.Helper()
	_, body := httpGet("http://" + a.listen + "/status.json")
	var st struct {
		Ranges []rangeRow `json:"ranges"`
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("status.json: %v", err)
	}
	for _, r := range st.Ranges {
		if r.Range == name {
			return r, true
		}
	}
	return rangeRow{}, false
}

type rangeRow struct {
	Range string `json:"range"`
	Used  int    `json:"used"`
	Size  int    `json:"size"`
}
