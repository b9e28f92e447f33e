package netboxtest

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// create posts one object and returns its id.
func create(t *testing.T, s *Server, path string, body map[string]any) int {
	t.Helper()
	var made struct {
		ID int `json:"id"`
	}
	s.Call(t, http.MethodPost, path, body, &made)
	return made.ID
}

// createAll bulk-creates objects and returns their ids in request order.
func createAll(t *testing.T, s *Server, path string, bodies ...map[string]any) []int {
	t.Helper()
	var made []struct {
		ID int `json:"id"`
	}
	s.Call(t, http.MethodPost, path, bodies, &made)
	var ids []int
	for _, m := range made {
		ids = append(ids, m.ID)
	}
	return ids
}

// bulkError is the answer to a failed bulk write: every bad entry named by
// its index (creates, and entries that name no object) or by its id.
type bulkError struct {
	Detail string `json:"detail"`
	Errors []struct {
		Index  *int                `json:"index"`
		ID     *int                `json:"id"`
		Errors map[string][]string `json:"errors"`
	} `json:"errors"`
}

// named lists the bad entries as "index 1: vid" or "id 7: __all__", each
// with the fields its errors name, sorted.
func (e bulkError) named() string {
	var out []string
	for _, x := range e.Errors {
		who := "?"
		switch {
		case x.Index != nil:
			who = fmt.Sprintf("index %d", *x.Index)
		case x.ID != nil:
			who = fmt.Sprintf("id %d", *x.ID)
		}
		out = append(out, who+": "+strings.Join(slices.Sorted(maps.Keys(x.Errors)), ","))
	}
	return strings.Join(out, "; ")
}

// state is what the server holds of a kind, each object's last_updated by
// id: equal states before and after a request show it wrote nothing.
func state(t *testing.T, s *Server, kind string) map[float64]any {
	t.Helper()
	out := map[float64]any{}
	for _, o := range s.Objects(t, kind, "fields=id,last_updated") {
		out[o["id"].(float64)] = o["last_updated"]
	}
	return out
}

// etagOf is the ETag NetBox sends with an object's detail.
func etagOf(t *testing.T, s *Server, path string) string {
	t.Helper()
	r := s.Do(t, http.MethodGet, path, nil, nil)
	if r.Status != http.StatusOK || r.Header.Get("ETag") == "" {
		t.Fatalf("GET %s: %d, ETag %q", path, r.Status, r.Header.Get("ETag"))
	}
	return r.Header.Get("ETag")
}

// detailPath is the detail endpoint of object id of a kind.
func detailPath(t *testing.T, kind string, id int) string {
	t.Helper()
	p, ok := endpoint(kind)
	if !ok {
		t.Fatalf("no endpoint for %s", kind)
	}
	return fmt.Sprintf("%s%d/", p, id)
}
