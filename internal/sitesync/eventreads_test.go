package sitesync

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// recorder notes every request a target's client sends.
type recorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	reqs []*http.Request
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.next.RoundTrip(req)
}

func (r *recorder) take() []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.reqs
	r.reqs = nil
	return out
}

// lookupRead says whether req reads the lookups objects are named by:
// locations or sites, statuses, roles, tenants, RIRs, the tags as a list,
// the location types, a create schema's choices (NetBox's OPTIONS). The
// marker tag read by name is the write's preflight, not a lookup.
func lookupRead(req *http.Request) bool {
	if req.Method == http.MethodOptions {
		return true
	}
	if req.Method != http.MethodGet {
		return false
	}
	p := req.URL.Path
	if strings.HasPrefix(p, "/api/extras/tags/") {
		return !req.URL.Query().Has("name")
	}
	for _, prefix := range []string{"/api/dcim/", "/api/tenancy/", "/api/extras/statuses/", "/api/extras/roles/", "/api/ipam/roles/", "/api/ipam/rirs/"} {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// TestEventSyncReadsNoLookups: a sync narrowed to the network a
// notification named writes the address a port gained through the read
// its followed view was made on. Its requests are the change log's, the
// write, and the marker's preflight (the tag by name, the custom fields);
// it reads none of the lookups again, which the whole read the view
// follows on from learnt. (NetBox's create also writes and deletes the
// record of its intent, which lets a lost answer be recovered.)
func TestEventSyncReadsNoLookups(t *testing.T) {
	eachTargetOf(t, servertest.Each, func(t *testing.T, g realTarget) {
		ctx := context.Background()
		owner := resource.NeutronOwner("a11")
		g.seedSite(t, "event-reads-test", "a11", "a11-12-network")
		rec := &recorder{}
		target := g.through(func(next http.RoundTripper) http.RoundTripper { rec.next = next; return rec })
		src := &fakeNeutron{snap: snapshot("n1", "n2")}
		s := newTestSyncer(Config{Map: neutron.MapConfig{Site: "a11", Namespace: "a11"}, Policy: randomSitePolicy(owner), Notified: true},
			src, target(scope.Site(owner, "a11", []string{"a11-12-network"})))
		if _, err := s.Sync(ctx, Request{Sweep: true}); err != nil {
			t.Fatalf("sweep: %v", err)
		}
		gained := snapshot("n1", "n2")
		gained.Ports = append(gained.Ports, neutron.Port{ID: "n1-portz", NetworkID: "n1",
			FixedIPs: []neutron.FixedIP{{SubnetID: "n1-sub", IPAddress: "192.168.1.12"}}})
		src.snap = gained
		rec.take()
		out, err := s.Sync(ctx, Request{Networks: []string{"n1"}})
		if err != nil {
			t.Fatalf("event sync: %v", err)
		}
		if out.Writes != 1 {
			t.Fatalf("event sync wrote %d objects, want the one address", out.Writes)
		}
		var lookups, all []string
		writes := 0
		for _, req := range rec.take() {
			line := req.Method + " " + req.URL.Path
			all = append(all, line)
			if lookupRead(req) {
				lookups = append(lookups, line)
			}
			// NetBox's create of an address also writes and deletes the
			// record of its intent (lost-create recovery): a tag, not the
			// object.
			if req.Method != http.MethodGet && req.Method != http.MethodOptions && strings.HasPrefix(req.URL.Path, "/api/ipam/") {
				writes++
			}
		}
		slices.Sort(all)
		t.Logf("event sync writing one address: %d requests, %d of them writes of objects: %s", len(all), writes, strings.Join(all, ", "))
		if len(lookups) > 0 {
			t.Errorf("the event sync read lookups again: %s", strings.Join(lookups, ", "))
		}
		if writes != 1 {
			t.Errorf("the event sync sent %d writes of objects, want 1: %s", writes, fmt.Sprint(all))
		}
	})
}
