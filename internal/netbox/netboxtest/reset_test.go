package netboxtest

import (
	"net/http"
	"testing"

	"github.com/ipsync/ipsync/internal/reqcount"
)

// countingTransport counts what the harness itself sends.
type countingTransport struct{ c *reqcount.Counter }

func (ct countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	ct.c.Add(r.Method, r.URL.Path)
	return http.DefaultTransport.RoundTrip(r)
}

// TestEmptyingFollowsTheChangelog: the harness trusts a clean server only
// when the newest change is its mark, and after a test sweeps only what
// the changelog shows created; anything else gets a whole sweep.
func TestEmptyingFollowsTheChangelog(t *testing.T) {
	s := New(t)
	var sent reqcount.Counter
	s.direct.http = &http.Client{Transport: countingTransport{&sent}}
	for _, tt := range []struct {
		name   string
		before func(t *testing.T)
		empty  func() error
		lists  int // GETs of list endpoints other than the changelog
	}{
		{"clean, nothing since", func(*testing.T) {}, s.emptyBefore, 0},
		{"an object created since", func(t *testing.T) {
			create(t, s, "/api/ipam/vrfs/", map[string]any{"name": "left"})
		}, s.emptyBefore, len(sweeps(Seed()))},
		// A sweep cut short: deletes without the mark that ends a sweep.
		{"deleted since, without the mark", func(t *testing.T) {
			id := create(t, s, "/api/ipam/vrfs/", map[string]any{"name": "left"})
			create(t, s, "/api/ipam/vlan-groups/", map[string]any{"name": "g", "slug": "g"})
			s.Call(t, http.MethodDelete, detailPath(t, "ipam.vrf", id), nil, nil)
		}, s.emptyBefore, len(sweeps(Seed()))},
		{"after a test, the types it created", func(t *testing.T) {
			create(t, s, "/api/ipam/vrfs/", map[string]any{"name": "left"})
			create(t, s, "/api/ipam/vlan-groups/", map[string]any{"name": "g", "slug": "g"})
		}, s.emptyAfter, 2},
		{"after a test that created nothing", func(*testing.T) {}, s.emptyAfter, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.before(t)
			sent.Reset()
			if err := tt.empty(); err != nil {
				t.Fatal(err)
			}
			if lists := sent.Requests(http.MethodGet, "/api/") - sent.Requests(http.MethodGet, "/api/core/object-changes/"); lists != tt.lists {
				t.Errorf("%d lists read to empty the server, want %d", lists, tt.lists)
			}
			for _, kind := range []string{"ipam.vrf", "ipam.vlangroup"} {
				if n := s.Count(t, kind); n != 0 {
					t.Errorf("%d %s left", n, kind)
				}
			}
			if _, emptied, err := s.direct.newestChange(); err != nil || !emptied {
				t.Errorf("the newest change is not the harness's mark (err %v)", err)
			}
		})
	}
}
