package nautobot

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/sot"

	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// tiedList serves n objects that all tie in the list's default ordering,
// as IP addresses with one host in several namespaces do. Without
// sort=id (or when ignoreSort), the database's order of tied rows
// differs from one page query to the next: here it flips, so offset
// paging repeats rows and misses others.
func tiedList(t *testing.T, n int, ignoreSort bool) *httptest.Server {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%08d-0000-4000-8000-000000000000", i)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/status/" {
			fmt.Fprint(w, `{"nautobot-version": "3.2.7"}`)
			return
		}
		q := r.URL.Query()
		limit, _ := strconv.Atoi(q.Get("limit"))
		offset, _ := strconv.Atoi(q.Get("offset"))
		order := slices.Clone(ids)
		if q.Get("sort") != "id" || ignoreSort {
			if (offset/limit)%2 == 1 {
				slices.Reverse(order)
			}
		}
		page := map[string]any{"count": n, "next": nil, "results": []map[string]string{}}
		var results []map[string]string
		for _, id := range order[offset:min(offset+limit, n)] {
			results = append(results, map[string]string{"id": id, "name": "tied"})
		}
		page["results"] = results
		if offset+limit < n {
			page["next"] = fmt.Sprintf("http://%s%s?limit=%d&offset=%d", r.Host, r.URL.Path, limit, offset+limit)
		}
		_ = json.NewEncoder(w).Encode(page)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestPagingWithTies: a list is read by a unique order, so tied rows
// come once each; a server that ignores the order and repeats a row is
// an error, never a list with a hole in it.
func TestPagingWithTies(t *testing.T) {
	tests := []struct {
		name       string
		n, page    int
		ignoreSort bool
		wantErr    string
	}{
		{"sorted by id, pages of 2", 7, 2, false, ""},
		{"sorted by id, pages of 3", 10, 3, false, ""},
		{"sort ignored, one page", 4, 10, true, ""},
		{"sort ignored, rows repeat", 7, 2, true, "came twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := tiedList(t, tt.n, tt.ignoreSort)
			c, err := New(Config{Settings: sot.Settings{URL: srv.URL, Token: "t", PageSize: tt.page, MaxRetries: -1}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := sweep[named](context.Background(), c, pathLocations, nil, nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("sweep = %d objects, %v; want an error with %q", len(got), err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, o := range got {
				seen[o.ID] = true
			}
			if len(got) != tt.n || len(seen) != tt.n {
				t.Errorf("sweep read %d objects, %d distinct; want %d", len(got), len(seen), tt.n)
			}
		})
	}
}

// TestRealPagingWithTies reads, from real servers, pages of 2 to 5 of
// rows that tie in Nautobot's ordering: one IP address in seven
// namespaces (IP addresses order by host), and three locations of one
// name under different parents (locations order by name). Each must
// come exactly once.
func TestRealPagingWithTies(t *testing.T) {
	servertest.EachReal(t, func(t *testing.T, srv *servertest.Server) {
		e := newRealEnv(t, srv, nil)
		ctx := context.Background()
		var objs []resource.Object
		var nss []string
		for i := range 7 {
			ns := e.name(fmt.Sprintf("tie%d", i))
			nss = append(nss, ns)
			objs = append(objs, &resource.Namespace{M: meta(), Name: ns},
				&resource.Prefix{M: meta(), Namespace: ns, Prefix: pfx("10.77.0.0/24"), Status: "Active"},
				&resource.IPAddress{M: meta(), Namespace: ns, Address: pfx("10.77.0.1/24"), Status: "Active"})
		}
		if _, err := e.c.Apply(ctx, creates(objs...)); err != nil {
			t.Fatal(err)
		}
		site := e.create("/api/dcim/location-types/", map[string]any{"name": e.name("lt"), "content_types": []string{"ipam.prefix"}, "nestable": true})
		dup := e.name("dup")
		for i := range 3 {
			parent := e.create(pathLocations, map[string]any{"name": e.name(fmt.Sprintf("p%d", i)), "location_type": site, "status": map[string]any{"name": "Active"}})
			e.create(pathLocations, map[string]any{"name": dup, "parent": parent, "location_type": site, "status": map[string]any{"name": "Active"}})
		}
		for _, size := range []int{2, 3, 5} {
			u, token := srv.URL(), srv.Token()
			c, err := New(Config{Settings: sot.Settings{URL: u, Token: token, PageSize: size, Tag: e.c.cfg.Tag, OwnerField: e.c.cfg.OwnerField, VNIField: e.c.cfg.VNIField}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.List(ctx, scope.Scope{Namespaces: nss, Kinds: []resource.Kind{resource.KindIPAddress}})
			if err != nil {
				t.Fatalf("page size %d: %v", size, err)
			}
			ids := map[string]bool{}
			for _, o := range got {
				ids[o.Meta().ID] = true
			}
			if len(got) != 7 || len(ids) != 7 {
				t.Errorf("page size %d: listed %d IP addresses, %d distinct; want 7", size, len(got), len(ids))
			}
			locs, err := sweep[named](ctx, c, pathLocations, url.Values{"name": {dup}}, nil)
			if err != nil {
				t.Fatalf("page size %d: %v", size, err)
			}
			ids = map[string]bool{}
			for _, l := range locs {
				ids[l.ID] = true
			}
			if len(locs) != 3 || len(ids) != 3 {
				t.Errorf("page size %d: read %d locations named %s, %d distinct; want 3", size, len(locs), dup, len(ids))
			}
		}
	})
}
