package nautobot

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"testing"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sot"
)

// TestRealFollowChangeLog keeps a site's view up to date from the real
// change log through hand edits of every kind it follows (a VLAN
// renumbered under its prefix, a description, a delete, a create, an
// object leaving the scope) and checks after each step that the view
// equals a whole read, and that a refresh with nothing changed costs one
// read of the log.
func TestRealFollowChangeLog(t *testing.T) {
	servertest.EachReal(t, func(t *testing.T, srv *servertest.Server) {
		e := newRealEnv(t, srv, nil)
		ctx := context.Background()
		ns, other, g := e.name("site"), e.name("other"), e.name("net")
		desired := []resource.Object{
			&resource.Namespace{M: meta(), Name: ns},
			&resource.Namespace{M: meta(), Name: other},
			&resource.VLANGroup{M: meta(), Name: g},
			&resource.VLAN{M: meta(), Group: g, VID: 100, Name: "a", Status: "Active"},
			&resource.VLAN{M: meta(), Group: g, VID: 200, Name: "b", Status: "Active"},
			&resource.Prefix{M: meta(), Namespace: ns, Prefix: pfx("10.0.1.0/24"), Type: resource.PrefixNetwork, Status: "Active", VLAN: resource.VLANKey(g, 100)},
			&resource.Prefix{M: meta(), Namespace: ns, Prefix: pfx("10.0.2.0/24"), Type: resource.PrefixNetwork, Status: "Active", VLAN: resource.VLANKey(g, 200)},
			&resource.Prefix{M: meta(), Namespace: other, Prefix: pfx("10.0.9.0/24"), Type: resource.PrefixNetwork, Status: "Active"},
			&resource.Prefix{M: meta(), Namespace: ns, Prefix: pfx("10.0.4.0/24"), Type: resource.PrefixNetwork, Status: "Active"},
			&resource.IPAddress{M: meta(), Namespace: ns, Address: pfx("10.0.1.5/24"), Status: "Active"},
			&resource.IPAddress{M: meta(), Namespace: ns, Address: pfx("10.0.2.5/24"), Status: "Active"},
		}
		if _, err := e.c.Apply(ctx, creates(desired...)); err != nil {
			t.Fatalf("Apply: %v", err)
		}
		// A tag as an agent's lease is one: rewritten all the time.
		var tag struct {
			ID string `json:"id"`
		}
		if _, err := e.c.Call(ctx, http.MethodPost, "/api/extras/tags/", nil, map[string]any{"name": e.name("lease"), "content_types": []string{"ipam.vlan"}}, &tag); err != nil {
			t.Fatal(err)
		}
		e.created("/api/extras/tags/", tag.ID)
		// A VLAN outside the scope's groups, not ipsync's, that a prefix in
		// it names.
		outside := e.name("outside")
		gid2 := e.create("/api/ipam/vlan-groups/", map[string]any{"name": outside})
		st := e.stored("/api/extras/statuses/", url.Values{"name": {"Active"}})[0]["id"]
		stray := e.create("/api/ipam/vlans/", map[string]any{"vid": 300, "name": "stray", "vlan_group": gid2, "status": st})
		p4 := e.stored("/api/ipam/prefixes/", url.Values{"prefix": {"10.0.4.0/24"}, "namespace": {ns}})[0]["id"].(string)
		if _, err := e.c.Call(ctx, http.MethodPatch, "/api/ipam/prefixes/"+p4+"/", nil, map[string]any{"vlan": stray}, nil); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_, _ = e.c.Call(ctx, http.MethodPatch, "/api/ipam/prefixes/"+p4+"/", nil, map[string]any{"vlan": nil}, nil)
		})
		sc := scope.Site(owner, ns, []string{g})
		tg := e.c.Target(sc)
		if _, err := tg.Follow(ctx); err != nil {
			t.Fatalf("Follow: %v", err)
		}
		id := func(path string, q url.Values) string {
			got := e.stored(path, q)
			if len(got) != 1 {
				t.Fatalf("%s?%s: %d objects, want 1", path, q.Encode(), len(got))
			}
			return got[0]["id"].(string)
		}
		nsID, otherID := id("/api/ipam/namespaces/", url.Values{"name": {ns}}), id("/api/ipam/namespaces/", url.Values{"name": {other}})
		v100 := id("/api/ipam/vlans/", url.Values{"vlan_group": {g}, "vid": {"100"}})
		v200 := id("/api/ipam/vlans/", url.Values{"vlan_group": {g}, "vid": {"200"}})
		ip5 := id("/api/ipam/ip-addresses/", url.Values{"namespace": {nsID}, "address": {"10.0.2.5"}})
		p2 := id("/api/ipam/prefixes/", url.Values{"namespace": {nsID}, "prefix": {"10.0.2.0/24"}})
		edit := func(method, path string, body map[string]any) {
			t.Helper()
			if _, err := e.c.Call(ctx, method, path, nil, body, nil); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
		}
		steps := []struct {
			name string
			edit func()
		}{
			{"nothing changed", func() {}},
			{"a tag's description rewritten", func() {
				edit(http.MethodPatch, "/api/extras/tags/"+tag.ID+"/", map[string]any{"description": "held until " + e.uniq})
			}},
			{"a VLAN outside the scope renumbered under a prefix in it", func() {
				edit(http.MethodPatch, "/api/ipam/vlans/"+stray+"/", map[string]any{"vid": 301})
			}},
			{"a VLAN renumbered under its prefix", func() { edit(http.MethodPatch, "/api/ipam/vlans/"+v100+"/", map[string]any{"vid": 101}) }},
			{"a description and a delete", func() {
				edit(http.MethodPatch, "/api/ipam/vlans/"+v200+"/", map[string]any{"description": "by hand"})
				edit(http.MethodDelete, "/api/ipam/ip-addresses/"+ip5+"/", nil)
			}},
			{"a VLAN taken off its prefix and deleted", func() {
				edit(http.MethodPatch, "/api/ipam/prefixes/"+p2+"/", map[string]any{"vlan": nil})
				edit(http.MethodDelete, "/api/ipam/vlans/"+v200+"/", nil)
			}},
			{"a prefix moved out of scope, an address created", func() {
				edit(http.MethodPatch, "/api/ipam/prefixes/"+p2+"/", map[string]any{"namespace": otherID})
				var ip struct {
					ID string `json:"id"`
				}
				if _, err := e.c.Call(ctx, http.MethodPost, "/api/ipam/ip-addresses/", nil, map[string]any{"address": "10.0.1.9/24", "namespace": nsID, "status": st}, &ip); err != nil {
					t.Fatal(err)
				}
				// Before the marked objects' cleanup, which would find its prefix in use.
				t.Cleanup(func() { edit(http.MethodDelete, "/api/ipam/ip-addresses/"+ip.ID+"/", nil) })
			}},
		}
		for _, s := range steps {
			s.edit()
			srv.ResetCounts()
			viewState, st, err := tg.Refresh(ctx)
			view := objectsOf(viewState)
			if err != nil {
				t.Fatalf("%s: Refresh: %v", s.name, err)
			}
			reads := srv.Requests(http.MethodGet, "/api/")
			// Nautobot 2.4 reads the log of every type, as many pages as
			// the server's other changes take: counted apart.
			checks := reads - srv.Requests(http.MethodGet, pathObjectChanges)
			full, err := e.c.List(ctx, sc)
			if err != nil {
				t.Fatal(err)
			}
			if misses := changelog.Compare(view, full); len(misses) > 0 {
				t.Errorf("%s: the view differs from a whole read: %v", s.name, misses)
			}
			// With nothing to reread, a Refresh reads the log and checks
			// the view: a read per kind, two where the scope also reads
			// the owner's objects elsewhere.
			kinds := sot.KindsOr(sc)
			if budget := 2 * len(kinds); (s.name == "nothing changed" || s.name == "a tag's description rewritten") && (checks > budget || st.Reread > 0) {
				t.Errorf("%s: Refresh sent %d reads besides the log's and reread %d objects, want at most %d and none", s.name, checks, st.Reread, budget)
			}
			t.Logf("%s: %d reads, %+v", s.name, reads, st)
		}

		// A sweep finds nothing the log missed.
		if _, misses, err := tg.Sweep(ctx); err != nil || len(misses) > 0 {
			t.Errorf("Sweep() misses %v, error %v; want none", misses, err)
		}

		// A renamed group changes what the scope's names select.
		gid := id("/api/ipam/vlan-groups/", url.Values{"name": {g}})
		edit(http.MethodPatch, "/api/ipam/vlan-groups/"+gid+"/", map[string]any{"name": g + "-x"})
		defer edit(http.MethodPatch, "/api/ipam/vlan-groups/"+gid+"/", map[string]any{"name": g})
		if _, _, err := tg.Refresh(ctx); !isUntrusted(err) {
			t.Errorf("Refresh after a group rename: %v, want an untrusted log", err)
		}
		if _, _, err := tg.Refresh(ctx); !isUntrusted(err) {
			t.Errorf("second Refresh without Follow: %v, want an untrusted log", err)
		}
	})
}

func isUntrusted(err error) bool {
	_, ok := errors.AsType[*changelog.UntrustedError](err)
	return ok
}
