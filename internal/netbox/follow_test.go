package netbox

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/netbox/netboxtest"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// TestFollowChangeLog keeps a site's view up to date from the real change
// log through hand edits of every kind it follows (a VLAN renumbered under
// its prefix, descriptions, deletes, creates, objects leaving the scope)
// and checks after each step that the view equals a whole read, and that
// a refresh with nothing changed, or with only a tag's description
// rewritten as the agent's lease does, costs one read of the log.
func TestFollowChangeLog(t *testing.T) {
	e := realEnv(t, nil, false)
	ctx := context.Background()
	ns, other, g := "site", "other", "site-net"
	desired := []resource.Object{
		&resource.Namespace{M: meta(), Name: ns},
		&resource.Namespace{M: meta(), Name: other},
		&resource.VLANGroup{M: meta(), Name: g, Location: "a11"},
		&resource.VLAN{M: meta(), Group: g, VID: 100, Name: "a", Status: "Active"},
		&resource.VLAN{M: meta(), Group: g, VID: 200, Name: "b", Status: "Active"},
		&resource.Prefix{M: meta(), Namespace: ns, Prefix: pfx("10.0.1.0/24"), Type: resource.PrefixNetwork, Status: "Active", VLAN: resource.VLANKey(g, 100)},
		&resource.Prefix{M: meta(), Namespace: ns, Prefix: pfx("10.0.2.0/24"), Type: resource.PrefixNetwork, Status: "Active", VLAN: resource.VLANKey(g, 200)},
		&resource.Prefix{M: meta(), Namespace: other, Prefix: pfx("10.0.9.0/24"), Type: resource.PrefixNetwork, Status: "Active"},
		&resource.IPAddress{M: meta(), Namespace: ns, Address: pfx("10.0.1.5/24"), Status: "Active"},
		&resource.IPAddress{M: meta(), Namespace: ns, Address: pfx("10.0.2.5/24"), Status: "Active"},
		&resource.ASN{M: meta(), ASN: 65001, Status: "Active"},
	}
	if _, err := e.c.Apply(ctx, creates(desired...)); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	sc := scope.Site(owner, ns, []string{g})
	sc.Kinds = append(sc.Kinds, resource.KindASN)
	tg := e.c.Target(sc)
	if _, err := tg.Follow(ctx); err != nil {
		t.Fatalf("Follow: %v", err)
	}
	// A Refresh with nothing changed reads the log and checks the view:
	// a request for each kind's newest objects, two where the scope also
	// reads the owner's objects elsewhere, and the log's count.
	e.s.ResetCounts()
	if _, _, err := tg.Refresh(ctx); err != nil {
		t.Fatalf("Refresh: %v", err)
	}
	quiet := e.s.Requests(http.MethodGet, "/api/")
	if budget := 2 + 2*len(sc.Kinds); quiet > budget {
		t.Errorf("a Refresh with nothing changed sent %d reads, want at most %d", quiet, budget)
	}
	id := func(kind string, filter ...string) int {
		t.Helper()
		got := e.s.Objects(t, kind, filter...)
		if len(got) != 1 {
			t.Fatalf("%s %v: %d objects, want 1", kind, filter, len(got))
		}
		return int(got[0]["id"].(float64))
	}
	vrf, otherVRF, group := e.s.ID(t, "ipam.vrf", ns), e.s.ID(t, "ipam.vrf", other), e.s.ID(t, "ipam.vlangroup", g)
	v100 := id("ipam.vlan", fmt.Sprintf("group_id=%d", group), "vid=100")
	v200 := id("ipam.vlan", fmt.Sprintf("group_id=%d", group), "vid=200")
	p1 := id("ipam.prefix", fmt.Sprintf("vrf_id=%d", vrf), "prefix=10.0.1.0/24")
	p2 := id("ipam.prefix", fmt.Sprintf("vrf_id=%d", vrf), "prefix=10.0.2.0/24")
	ip25 := id("ipam.ipaddress", fmt.Sprintf("vrf_id=%d", vrf), "address=10.0.2.5/24")
	asn := id("ipam.asn", "asn=65001")
	path := func(kind resource.Kind, id int) string {
		ep, _ := endpointOf(kind)
		return fmt.Sprintf("%s%d/", ep.path, id)
	}
	edit := func(method, path string, body any) { t.Helper(); e.call(method, path, body, nil) }
	var byHand struct {
		ID int `json:"id"`
	}
	steps := []struct {
		name     string
		edit     func()
		oneRead  bool
		rereadAt int // least objects reread
	}{
		{name: "nothing changed", edit: func() {}, oneRead: true},
		{name: "a VLAN renumbered under its prefix", rereadAt: 2, edit: func() {
			edit(http.MethodPatch, path(resource.KindVLAN, v100), map[string]any{"vid": 101})
		}},
		{name: "a description of every kind, an address deleted", rereadAt: 5, edit: func() {
			edit(http.MethodPatch, path(resource.KindNamespace, vrf), map[string]any{"description": "by hand"})
			edit(http.MethodPatch, path(resource.KindVLANGroup, group), map[string]any{"description": "by hand"})
			edit(http.MethodPatch, path(resource.KindVLAN, v200), map[string]any{"description": "by hand"})
			edit(http.MethodPatch, path(resource.KindPrefix, p2), map[string]any{"description": "by hand"})
			edit(http.MethodPatch, path(resource.KindASN, asn), map[string]any{"description": "by hand"})
			edit(http.MethodDelete, path(resource.KindIPAddress, ip25), nil)
		}},
		{name: "a VLAN taken off its prefix and deleted", rereadAt: 1, edit: func() {
			edit(http.MethodPatch, path(resource.KindPrefix, p2), map[string]any{"vlan": nil})
			edit(http.MethodDelete, path(resource.KindVLAN, v200), nil)
		}},
		{name: "an address and an ASN created by hand", rereadAt: 2, edit: func() {
			e.call(http.MethodPost, "/api/ipam/ip-addresses/", map[string]any{"address": "10.0.1.9/24", "vrf": vrf}, &byHand)
			edit(http.MethodPost, "/api/ipam/asns/", map[string]any{"asn": 65002, "rir": e.s.ID(t, "ipam.rir", "private")})
		}},
		{name: "the address by hand leaves the scope, the owner's prefix moves out of it", rereadAt: 2, edit: func() {
			edit(http.MethodPatch, path(resource.KindIPAddress, byHand.ID), map[string]any{"vrf": otherVRF})
			edit(http.MethodPatch, path(resource.KindPrefix, p2), map[string]any{"vrf": otherVRF})
		}},
		{name: "a VLAN by hand put under the owner's prefix", rereadAt: 2, edit: func() {
			e.call(http.MethodPost, "/api/ipam/vlans/", map[string]any{"group": group, "vid": 300, "name": "c"}, &byHand)
			edit(http.MethodPatch, path(resource.KindPrefix, p1), map[string]any{"vlan": byHand.ID})
		}},
		{name: "that VLAN moved to a group out of scope, its prefix still naming it", rereadAt: 2, edit: func() {
			var elsewhere struct {
				ID int `json:"id"`
			}
			e.call(http.MethodPost, "/api/ipam/vlan-groups/", map[string]any{"name": "elsewhere", "slug": "elsewhere"}, &elsewhere)
			edit(http.MethodPatch, path(resource.KindVLAN, byHand.ID), map[string]any{"group": elsewhere.ID})
		}},
		{name: "that VLAN's description edited", edit: func() {
			edit(http.MethodPatch, path(resource.KindVLAN, byHand.ID), map[string]any{"description": "by hand"})
		}},
		{name: "the marker tag's description rewritten", oneRead: true, edit: func() {
			edit(http.MethodPatch, fmt.Sprintf("/api/extras/tags/%d/", e.s.ID(t, "extras.tag", e.c.cfg.Tag)), map[string]any{"description": "renewed"})
		}},
	}
	for _, s := range steps {
		s.edit()
		e.s.ResetCounts()
		viewState, st, err := tg.Refresh(ctx)
		view := objectsOf(viewState)
		if err != nil {
			t.Fatalf("%s: Refresh: %v", s.name, err)
		}
		reads := e.s.Requests(http.MethodGet, "/api/")
		full, err := e.c.List(ctx, sc)
		if err != nil {
			t.Fatal(err)
		}
		if misses := changelog.Compare(view, full); len(misses) > 0 {
			t.Errorf("%s: the view differs from a whole read: %v", s.name, misses)
		}
		// Once the log has moved on, the cursor also counts its entries
		// behind the overlap: one read more.
		if s.oneRead && (reads > quiet+1 || st.Reread != 0) {
			t.Errorf("%s: Refresh sent %d reads and reread %d objects, want at most %d, as with nothing changed, and none", s.name, reads, st.Reread, quiet+1)
		}
		if st.Reread < s.rereadAt {
			t.Errorf("%s: Refresh reread %d objects, want at least %d", s.name, st.Reread, s.rereadAt)
		}
		t.Logf("%s: %d reads, %+v", s.name, reads, st)
	}

	// The view holds no VLAN of that key: the rereader says its old key
	// went, and the prefix naming it is read again.
	edit(http.MethodPatch, path(resource.KindVLAN, byHand.ID), map[string]any{"vid": 301})
	viewState, st, err := tg.Refresh(ctx)
	view := objectsOf(viewState)
	if err != nil {
		t.Fatalf("Refresh after a VLAN outside the scope named by a prefix in it was renumbered: %v", err)
	}
	full, err := e.c.List(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	if misses := changelog.Compare(view, full); len(misses) > 0 || st.Reread < 2 {
		t.Errorf("after a VLAN outside the scope named by a prefix in it was renumbered, the view differs from a whole read: %v (%+v)", misses, st)
	}
}

// TestFollowUntrusted checks that changes the log cannot follow (a VLAN
// group or VRF renamed, a lookup created or renamed) make Refresh ask for
// a whole read, and that Refresh goes on asking until Follow reads again.
func TestFollowUntrusted(t *testing.T) {
	e := realEnv(t, nil, false)
	ctx := context.Background()
	ns, g := "site", "site-net"
	if _, err := e.c.Apply(ctx, creates(
		&resource.Namespace{M: meta(), Name: ns},
		&resource.VLANGroup{M: meta(), Name: g},
		&resource.VLAN{M: meta(), Group: g, VID: 100, Name: "a", Status: "Active"},
		&resource.Prefix{M: meta(), Namespace: ns, Prefix: pfx("10.0.1.0/24"), Type: resource.PrefixNetwork, Status: "Active", VLAN: resource.VLANKey(g, 100)},
	)); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	sc := scope.Site(owner, ns, []string{g})
	tg := e.c.Target(sc)
	tag := map[string]any{"name": "by-hand", "slug": "by-hand"}
	var made struct {
		ID int `json:"id"`
	}
	steps := []struct {
		name      string
		edit      func()
		untrusted bool
	}{
		{"a VLAN group renamed", func() {
			e.call(http.MethodPatch, fmt.Sprintf("/api/ipam/vlan-groups/%d/", e.s.ID(t, "ipam.vlangroup", g)), map[string]any{"name": g + "-x"}, nil)
			g += "-x"
		}, true},
		{"a VRF renamed", func() {
			e.call(http.MethodPatch, fmt.Sprintf("/api/ipam/vrfs/%d/", e.s.ID(t, "ipam.vrf", ns)), map[string]any{"name": ns + "-x"}, nil)
			ns += "-x"
		}, true},
		{"a tag created", func() { e.call(http.MethodPost, "/api/extras/tags/", tag, &made) }, true},
		{"a tag renamed", func() {
			e.call(http.MethodPatch, fmt.Sprintf("/api/extras/tags/%d/", made.ID), map[string]any{"name": "by-hand-x"}, nil)
		}, true},
		{"a tag's colour changed", func() {
			e.call(http.MethodPatch, fmt.Sprintf("/api/extras/tags/%d/", made.ID), map[string]any{"color": "ff0000"}, nil)
		}, false},
		{"a tenant renamed", func() {
			id := e.s.ID(t, "tenancy.tenant", netboxtest.Seed().Tenants[0])
			e.call(http.MethodPatch, fmt.Sprintf("/api/tenancy/tenants/%d/", id), map[string]any{"name": "renamed"}, nil)
			t.Cleanup(func() {
				e.call(http.MethodPatch, fmt.Sprintf("/api/tenancy/tenants/%d/", id), map[string]any{"name": netboxtest.Seed().Tenants[0]}, nil)
			})
		}, true},
	}
	for _, s := range steps {
		if _, err := tg.Follow(ctx); err != nil {
			t.Fatalf("%s: Follow: %v", s.name, err)
		}
		s.edit()
		_, _, err := tg.Refresh(ctx)
		if isUntrusted(err) != s.untrusted {
			t.Fatalf("%s: Refresh: %v, want untrusted %v", s.name, err, s.untrusted)
		}
		if !s.untrusted {
			continue
		}
		if _, _, err := tg.Refresh(ctx); !isUntrusted(err) {
			t.Errorf("%s: second Refresh without Follow: %v, want an untrusted log", s.name, err)
		}
	}
}

func isUntrusted(err error) bool {
	_, ok := errors.AsType[*changelog.UntrustedError](err)
	return ok
}
