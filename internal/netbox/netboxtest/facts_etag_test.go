package netboxtest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestFactETagIsLastUpdated pins the ETag NetBox 4.7 sends: weak, made of
// last_updated as the database keeps it, in UTC, as Python writes it
// ("+00:00", microseconds when there are some), while the JSON body writes
// the same instant in the server's TIME_ZONE ("Z" in UTC, "+01:00" in
// Berlin). An If-Match built from a body's last_updated must write its
// UTC instant so. Lists send no ETag; a write answers with the new one.
func TestFactETagIsLastUpdated(t *testing.T) {
	s := New(t)
	id := create(t, s, "/api/ipam/vrfs/", map[string]any{"name": "a11"})
	path := detailPath(t, "ipam.vrf", id)

	var body struct {
		LastUpdated string `json:"last_updated"`
	}
	r := s.Do(t, http.MethodGet, path, nil, nil)
	r.JSON(t, &body)
	t.Logf("last_updated %s, ETag %s", body.LastUpdated, r.Header.Get("ETag"))
	if got, want := r.Header.Get("ETag"), weakUTC(t, body.LastUpdated); got != want {
		t.Errorf("ETag = %s, want %s (last_updated %s)", got, want, body.LastUpdated)
	}
	if got := s.Do(t, http.MethodGet, "/api/ipam/vrfs/", nil, nil).Header.Get("ETag"); got != "" {
		t.Errorf("a list answered with ETag %s, want none", got)
	}
	w := s.Do(t, http.MethodPatch, path, map[string]any{"description": "x"}, nil)
	w.JSON(t, &body)
	if got, want := w.Header.Get("ETag"), weakUTC(t, body.LastUpdated); got != want || got == r.Header.Get("ETag") {
		t.Errorf("PATCH answered ETag %s, want the new %s", got, want)
	}
}

// weakUTC is the weak ETag of a last_updated as JSON carries it: its
// instant in UTC, as Python's isoformat writes it.
func weakUTC(t *testing.T, lastUpdated string) string {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, lastUpdated)
	if err != nil {
		t.Fatalf("last_updated %q: %v", lastUpdated, err)
	}
	at = at.UTC()
	s := at.Format("2006-01-02T15:04:05")
	if us := at.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	return `W/"` + s + `+00:00"`
}

// TestFactIfMatch pins NetBox 4.7's compare-and-swap: a write whose
// If-Match names none of the object's current ETags answers 412 with the
// current ETag and writes nothing; naming it (or "*", or sending none)
// writes. Bulk PATCH and DELETE honour it too, for every object of the
// list: If-Match may list several ETags, each object must match one, and
// one stale object fails the whole request with 412.
func TestFactIfMatch(t *testing.T) {
	s := New(t)
	const stale = `W/"2000-01-01T00:00:00+00:00"`
	for _, tt := range []struct {
		name    string
		method  string
		bulk    bool
		ifMatch func(etags []string) string // etags: the objects' current ETags
		status  int
	}{
		{"PATCH, stale", http.MethodPatch, false, func([]string) string { return stale }, 412},
		{"PATCH, current", http.MethodPatch, false, func(e []string) string { return e[0] }, 200},
		{"PATCH, current among others", http.MethodPatch, false, func(e []string) string { return stale + ", " + e[0] }, 200},
		{"PATCH, any", http.MethodPatch, false, func([]string) string { return "*" }, 200},
		{"DELETE, stale", http.MethodDelete, false, func([]string) string { return stale }, 412},
		{"DELETE, current", http.MethodDelete, false, func(e []string) string { return e[0] }, 204},
		{"bulk PATCH, all current", http.MethodPatch, true, func(e []string) string { return strings.Join(e, ", ") }, 200},
		{"bulk PATCH, one stale", http.MethodPatch, true, func(e []string) string { return e[0] }, 412},
		{"bulk PATCH, none sent", http.MethodPatch, true, func([]string) string { return "" }, 200},
		{"bulk DELETE, all current", http.MethodDelete, true, func(e []string) string { return strings.Join(e, ", ") }, 204},
		{"bulk DELETE, one stale", http.MethodDelete, true, func(e []string) string { return e[1] }, 412},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s.Reset(t)
			ids := createAll(t, s, "/api/ipam/vrfs/", map[string]any{"name": "a"}, map[string]any{"name": "b"})
			etags := []string{etagOf(t, s, detailPath(t, "ipam.vrf", ids[0])), etagOf(t, s, detailPath(t, "ipam.vrf", ids[1]))}
			path := detailPath(t, "ipam.vrf", ids[0])
			var body any = map[string]any{"description": "changed"}
			if tt.method == http.MethodDelete {
				body = nil
			}
			if tt.bulk {
				path = "/api/ipam/vrfs/"
				entry := func(id int) map[string]any {
					if tt.method == http.MethodDelete {
						return map[string]any{"id": id}
					}
					return map[string]any{"id": id, "description": "changed"}
				}
				body = []any{entry(ids[0]), entry(ids[1])}
			}
			header := http.Header{}
			if v := tt.ifMatch(etags); v != "" {
				header.Set("If-Match", v)
			}
			before := state(t, s, "ipam.vrf")
			r := s.Do(t, tt.method, path, body, header)
			if r.Status != tt.status {
				t.Fatalf("%s %s If-Match %q: %d %s, want %d", tt.method, path, header.Get("If-Match"), r.Status, r.Body, tt.status)
			}
			if tt.status != 412 {
				return
			}
			if after := state(t, s, "ipam.vrf"); len(after) != 2 || after[float64(ids[0])] != before[float64(ids[0])] || after[float64(ids[1])] != before[float64(ids[1])] {
				t.Errorf("a 412 changed the VRFs: %v -> %v", before, after)
			}
			if got := r.Header.Get("ETag"); got != etags[0] && got != etags[1] {
				t.Errorf("412 answered ETag %q, want a current one of %v", got, etags)
			}
		})
	}
}
