package cli

import (
	"net/http"
	"path/filepath"
	"testing"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/netbox/netboxtest"
)

// targetServer is what the scenarios use of a server, the same on
// servertest.Server and netboxtest.Server.
type targetServer interface {
	URL() string
	Token() string
	Requests(method, pathPrefix string) int
	ResetCounts()
	Call(t testing.TB, method, path string, body, out any)
}

// target is a Nautobot or a NetBox a scenario runs against, with what
// differs between the two: the config section, how objects are listed, and
// the body a person sends to create a VLAN by hand.
type target struct {
	targetServer
	section  string // "nautobot" or "netbox"
	list     func(t testing.TB, kind string) []map[string]any
	vlanBody func(vid int, name, group, owner string) map[string]any
	// examples is a folder of the repository's examples as this server
	// takes them.
	examples func(t testing.TB) string
}

// Objects lists every object of a kind ("ipam.vlan"), uncounted.
func (g *target) Objects(t testing.TB, kind string) []map[string]any {
	t.Helper()
	return g.list(t, kind)
}

// Count is how many objects of a kind the server holds.
func (g *target) Count(t testing.TB, kind string) int {
	t.Helper()
	return len(g.list(t, kind))
}

// handVLAN creates VLAN vid in group as a person would, outside ipsync:
// unmarked when owner is "", otherwise marked as owner's.
func (g *target) handVLAN(t testing.TB, vid int, name, group, owner string) {
	t.Helper()
	g.Call(t, http.MethodPost, "/api/ipam/vlans/", g.vlanBody(vid, name, group, owner), nil)
}

func nautobotTarget(s *servertest.Server) *target {
	examples := func(testing.TB) string { return filepath.Join(repoRoot, "examples") }
	return &target{targetServer: s, section: "nautobot", list: s.Objects, examples: examples, vlanBody: func(vid int, name, group, owner string) map[string]any {
		b := map[string]any{"vid": vid, "name": name, "vlan_group": map[string]any{"name": group}, "status": map[string]any{"name": "Active"}}
		return marked(b, owner)
	}}
}

func netboxTarget(s *netboxtest.Server) *target {
	list := func(t testing.TB, kind string) []map[string]any { return s.Objects(t, kind) }
	examples := func(t testing.TB) string { return netboxExamples(t, unchanged) }
	return &target{targetServer: s, section: "netbox", list: list, examples: examples, vlanBody: func(vid int, name, group, owner string) map[string]any {
		b := map[string]any{"vid": vid, "name": name, "group": map[string]any{"name": group}, "status": "active"}
		return marked(b, owner)
	}}
}

// marked adds ipsync's marker tag and owner to a VLAN body, unless owner
// is "".
func marked(body map[string]any, owner string) map[string]any {
	if owner != "" {
		body["tags"] = []map[string]any{{"name": "managed-by-ipsync"}}
		body["custom_fields"] = map[string]any{"ipsync_owner": owner}
	}
	return body
}

// eachTarget runs fn as a subtest on each Nautobot eachNautobot gives and
// then on the real NetBox the environment names (skipped without it).
func eachTarget(t *testing.T, fn func(t *testing.T, g *target)) {
	t.Helper()
	eachNautobot(t, func(t *testing.T, s *servertest.Server) { fn(t, nautobotTarget(s)) })
	t.Run("netbox", func(t *testing.T) { fn(t, netboxTarget(netboxtest.New(t))) })
}

// eachNautobot runs fn on the emulator and the newest real Nautobot (3.x).
// The command line's tests and its daemons' end-to-end ones go through the
// adapter, whose every test runs on Nautobot 2.4 LTM too, as do the site
// sync's (the randomized history among them: restarts, takeovers, the
// change log) and the lease's: what the LTM's server decides is checked
// there. Running the CLI's again on it cost CI some twenty minutes of one
// test process (1,216 s in the run of 2026-12-07, late).
func eachNautobot(t *testing.T, fn func(t *testing.T, s *servertest.Server)) {
	t.Helper()
	servertest.EachNewest(t, fn)
}
