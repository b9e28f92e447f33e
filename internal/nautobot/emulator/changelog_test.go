package emulator

import (
	"net/http"
	"testing"
)

// TestChangeLogLeavesSeedOut checks that what a server starts with, and
// what Seed adds, is not in the change log: Nautobot logs only changes
// made through a request, and its seed is made without one.
func TestChangeLogLeavesSeedOut(t *testing.T) {
	for _, tc := range []struct {
		name string
		seed SeedData
	}{
		{"fresh", SeedData{}},
		{"seeded", SeedData{Locations: []string{"a11"}, Roles: []string{"r"}, Tenants: []string{"t"}, Tags: []string{"blue"}, Namespaces: []string{"n"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewServer(WithChangeLog())
			defer s.Close()
			if err := s.Seed(tc.seed); err != nil {
				t.Fatal(err)
			}
			got := mustCall(t, s, http.StatusOK, http.MethodGet, "/api/extras/object-changes/", nil)
			if n := got.(map[string]any)["count"]; n != float64(0) {
				t.Errorf("records after seeding: %v, want 0", n)
			}
			mustCall(t, s, http.StatusCreated, http.MethodPost, "/api/ipam/namespaces/", map[string]any{"name": "x"})
			got = mustCall(t, s, http.StatusOK, http.MethodGet, "/api/extras/object-changes/", nil)
			if n := got.(map[string]any)["count"]; n != float64(1) {
				t.Errorf("records after one create: %v, want 1", n)
			}
		})
	}
}

// TestChangeLogServedOnRequest: without WithChangeLog the change log and
// the content types are not served; the objects are.
func TestChangeLogServedOnRequest(t *testing.T) {
	for _, tc := range []struct {
		opts []Option
		want int
	}{{nil, 404}, {[]Option{WithChangeLog()}, 200}} {
		s := NewServer(tc.opts...)
		for _, path := range []string{"/api/extras/object-changes/", "/api/extras/content-types/"} {
			if got, _ := call(t, s, "GET", path, nil); got != tc.want {
				t.Errorf("with %d options: GET %s = %d, want %d", len(tc.opts), path, got, tc.want)
			}
		}
		if got, _ := call(t, s, "GET", "/api/ipam/namespaces/", nil); got != 200 {
			t.Errorf("with %d options: GET /api/ipam/namespaces/ = %d, want 200", len(tc.opts), got)
		}
		s.Close()
	}
}
