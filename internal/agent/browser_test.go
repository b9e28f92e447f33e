package agent_test

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/agent"
	"github.com/ipsync/ipsync/internal/browsertest"
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
