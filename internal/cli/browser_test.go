package cli

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/browsertest"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
)

// TestDriftReportInABrowser opens the report of ipsync drift -o html, as
// saved to a file, in a real headless Chromium: it renders and shows each
// drifting object. The report forbids scripts and fetches, so what the
// browser shows works without JavaScript and offline.
func TestDriftReportInABrowser(t *testing.T) {
	chromium := browsertest.New(t)
	eachNautobot(t, func(t *testing.T, srv *servertest.Server) { driftReportInABrowser(t, srv, chromium) })
}

func driftReportInABrowser(t *testing.T, srv *servertest.Server, chromium *browsertest.Chromium) {
	e := newSpecEnv(t, srv)
	e.vlans(t, 5, "")
	mustRun(t, "apply", "--config", e.cfg, "--commit")
	// Drift of every sort: edited by hand, missing, and in the way.
	for _, v := range e.srv.Objects(t, "ipam.vlan") {
		if fmt.Sprint(v["vid"]) == "101" {
			e.srv.Call(t, http.MethodPatch, "/api/ipam/vlans/"+fmt.Sprint(v["id"])+"/", map[string]any{"description": "edited by hand"}, nil)
		}
	}
	e.direct(t, "ipam/vlans/", `{"vid": 150, "name": "by-hand", "vlan_group": {"name": "a11-12-network"}, "status": {"name": "Active"}}`)
	e.vlans(t, 6, "  - {vid: 150, name: by-hand, vlan_group: a11-12-network}\n")

	report := filepath.Join(t.TempDir(), "drift.html")
	if code, _, errOut := run(t, nil, "drift", "--config", e.cfg, "-o", "html", "--out", report); code != ExitChanges {
		t.Fatalf("drift -o html = exit %d:\n%s", code, errOut)
	}
	raw, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(string(raw)), "<script") {
		t.Errorf("the report has a script")
	}
	url := "file://" + report
	dom := chromium.DOM(t, url)
	for _, want := range []string{
		"static:deploy", "3 objects drift, 0 leaks.",
		// Each kind and drift a group of its own; so few objects are unfolded.
		`<details class="group" open="">`,
		"different</span> <strong>vlan</strong>: 1", "a11-12-network/101", `"edited by hand" → ""`,
		"missing</span> <strong>vlan</strong>: 1", "a11-12-network/105",
		"unmarked</span> <strong>vlan</strong>: 1", "a11-12-network/150", "exists without an ipsync marker",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the browser's drift report lacks %q:\n%s", want, dom)
		}
	}
	chromium.Screenshot(t, url, "drift-report-"+srv.Name)
}
