package agent_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/agent"
	"github.com/ipsync/ipsync/internal/browsertest"
	"github.com/ipsync/ipsync/internal/drift"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// TestStatusPageInABrowser opens the status page in a real headless
// Chromium: it renders, and shows the conditions, the last runs and the
// drifting objects. The page forbids scripts (Content-Security-Policy),
// so what the browser shows is what works without JavaScript.
func TestStatusPageInABrowser(t *testing.T) {
	chromium := browsertest.New(t)
	clock := newFakeClock()
	h := start(t, clock, newTable(clock), "agent-1")
	h.next().answer(driftingOutcome(), nil)
	h.runs(1)
	h.send(agent.Trigger{NetworkIDs: []string{"net-1"}, Events: 3})
	h.next().answer(agent.Outcome{}, agent.Unreachable("nautobot", errors.New("502 Bad Gateway")))
	h.runs(2)
	h.agent.SetCondition("rabbitmq", true, "consuming amqp://rabbitmq.a11.example.net:5672/")
	srv := httptest.NewServer(h.agent.Handler())
	defer srv.Close()

	dom := chromium.DOM(t, srv.URL+"/")
	for _, want := range []string{
		"Agent for site <code>a11</code>",
		"held by this agent",
		// conditions
		"<td>nautobot</td>", "nautobot unreachable: 502 Bad Gateway", "<td>rabbitmq</td>", "consuming amqp://rabbitmq.a11.example.net:5672/",
		// the last runs, newest first
		"<td>events 3</td>", "<td>sweep</td>", "neutron: 4",
		// the drift of the last full sync
		"a11-12-network/101", "missing", "seg-7", "VLAN segment without ports",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the browser's status page lacks %q:\n%s", want, dom)
		}
	}
	if i, j := strings.Index(dom, "<td>events 3</td>"), strings.Index(dom, "<td>sweep</td>"); i < 0 || j < i {
		t.Errorf("runs are not newest first")
	}
	chromium.Screenshot(t, srv.URL+"/", "status-page")
}

// historyOutcome is the full sync number i of a busy site: new networks
// every time, written; now and then a VLAN created by hand in the way, so
// the plan is refused and its drift stays; leaks that come and go.
func historyOutcome(i int) agent.Outcome {
	owner := resource.NeutronOwner(site)
	var desired, current []resource.Object
	missing := []int{5, 2, 3, 1, 4, 2, 6, 3, 1, 2}[i%10]
	for v := range missing {
		desired = append(desired, &resource.VLAN{M: resource.Meta{Owner: owner}, Group: "a11-12-network", VID: uint16(100*i + v + 1), Name: fmt.Sprintf("tenant-net-%d-%d", i, v)})
	}
	refused := i%7 == 4 || i%7 == 5
	if refused {
		taken := &resource.VLAN{Group: "a11-12-network", VID: 4000, Name: "by-hand"}
		desired = append(desired, &resource.VLAN{M: resource.Meta{Owner: owner}, Group: "a11-12-network", VID: 4000, Name: "tenant-net-x"})
		current = append(current, taken)
	}
	var leaks []drift.Leak
	for l := range i % 4 {
		leaks = append(leaks, drift.Leak{Kind: "segment", Key: fmt.Sprintf("seg-%d", l), Message: "VLAN segment without ports"})
	}
	p := plan.Make(desired, current, plan.DefaultPolicy(owner))
	out := agent.Outcome{Plan: p, Drift: drift.FromPlan(p, leaks), Reads: map[string]int{"neutron": 4, "nautobot": 6}}
	if !refused {
		out.Writes, out.Drift = missing, out.Drift.Written()
	}
	return out
}

// TestStatusPageHistoryInABrowser runs an agent through six hours of a
// fake clock, full syncs and syncs for events, some failing, and opens
// its status page in Chromium: the title, the badge, the charts drawn as
// inline SVG, and the meta refresh, which the browser follows under the
// page's policy.
func TestStatusPageHistoryInABrowser(t *testing.T) {
	chromium := browsertest.New(t)
	clock := newFakeClock()
	cfg := testConfig()
	cfg.LeaseTTL = 48 * time.Hour
	h := startConfig(t, clock, newLeaseTable(clock, cfg.LeaseTTL).Lease("neutron:"+site, "agent-1"), cfg)
	n := 0
	for i := range 30 {
		c := h.next()
		clock.Advance(time.Duration(2+i%5) * time.Second)
		// Not right before syncs for events: the retry would take their place.
		if i == 9 || i == 21 || i == 24 {
			c.answer(agent.Outcome{}, agent.Unreachable("nautobot", errors.New("502 Bad Gateway")))
		} else {
			c.answer(historyOutcome(i), nil)
		}
		n++
		h.syncs(n)
		if i%3 == 1 {
			clock.Advance(3 * time.Minute)
			h.send(agent.Trigger{NetworkIDs: []string{"net-1"}, Events: 2})
			c := h.next()
			clock.Advance(time.Second)
			c.answer(agent.Outcome{Writes: 1 + i%2}, nil)
			n++
			h.syncs(n)
		}
		// Past the interval and its jitter (10m ± 10%).
		clock.Advance(12 * time.Minute)
	}
	c := h.next()
	clock.Advance(3 * time.Second)
	c.answer(historyOutcome(30), nil)
	h.syncs(n + 1)
	var loads atomic.Int32
	handler := h.agent.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The page reloads itself for ever; after the first reload this
		// one says so and stops, so the browser's virtual time runs out.
		if r.URL.Path == "/" && r.URL.RawQuery == "" && loads.Add(1) > 1 {
			fmt.Fprint(w, "<!DOCTYPE html><title>reloaded</title><p>reloaded</p>")
			return
		}
		handler.ServeHTTP(w, r)
	}))
	defer srv.Close()

	dom := chromium.DOM(t, srv.URL+"/?first")
	for _, want := range []string{
		"<title>ipsync: Agent for site a11 — ",
		`<meta http-equiv="refresh" content="`,
		`<span class="badge `,
		"The last 6 hours, per 5 minutes: ",
		"Sync duration: the longest per 5 minutes", "Objects written", "Drift left by each full sync, per kind",
		"<polyline", "segment leaks",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the browser's status page lacks %q", want)
		}
	}
	// Chromium parsed the charts as SVG, not as unknown HTML elements: it
	// serializes their namespace.
	if n := strings.Count(dom, `<svg xmlns="http://www.w3.org/2000/svg"`); n != 3 {
		t.Errorf("the browser built %d SVG charts, want 3", n)
	}
	if strings.Contains(dom, "badge dry") {
		t.Errorf("an agent that writes wears the dry-run badge")
	}
	chromium.Screenshot(t, srv.URL+"/?first", "status-page-history")

	loads.Store(0)
	if dom := chromium.DOMAfter(t, srv.URL+"/", 31*time.Second); !strings.Contains(dom, "<p>reloaded</p>") || loads.Load() != 2 {
		t.Errorf("the status page did not reload itself within 31s (%d loads):\n%s", loads.Load(), dom)
	}
}

// TestDryRunStatusPageInABrowser: a dry run's page wears its badge, and
// the drift it would write is in the browser's page, folded.
func TestDryRunStatusPageInABrowser(t *testing.T) {
	chromium := browsertest.New(t)
	clock := newFakeClock()
	cfg := testConfig()
	cfg.DryRun = true
	h := startConfig(t, clock, newTable(clock).Lease("neutron:"+site, "dry"), cfg)
	h.next().answer(manyVLANsOutcome(300), nil)
	h.runs(1)
	srv := httptest.NewServer(h.agent.Handler())
	defer srv.Close()
	dom := chromium.DOM(t, srv.URL+"/")
	for _, want := range []string{
		"<title>ipsync: Agent for site a11 — 300 drifting (dry run)</title>",
		`<span class="badge dry">dry run</span>`,
		"<strong>vlan</strong>: 300 <small>(100 listed)</small>", "200 more not listed here",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the browser's status page of a dry run lacks %q", want)
		}
	}
	chromium.Screenshot(t, srv.URL+"/", "status-page-dry-run")
}
