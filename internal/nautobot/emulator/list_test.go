package emulator

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

func createNamespaces(t *testing.T, s *Server, n int) {
	t.Helper()
	var batch []any
	for i := range n {
		batch = append(batch, map[string]any{"name": fmt.Sprintf("ns-%03d", i)})
	}
	mustCall(t, s, 201, "POST", "/api/ipam/namespaces/", batch)
}

func TestPagination(t *testing.T) {
	s := NewServer(WithMaxPageSize(100))
	defer s.Close()
	createNamespaces(t, s, 129) // with Global: 130
	tests := []struct {
		query       string
		wantResults int
		wantNext    string // query of next, "" for null
		wantPrev    string
	}{
		{"", 50, "limit=50&offset=50", ""},
		{"?limit=20&offset=100", 20, "limit=20&offset=120", "limit=20&offset=80"},
		{"?limit=20&offset=120", 10, "", "limit=20&offset=100"},
		{"?limit=20&offset=10", 20, "limit=20&offset=30", "limit=20"},
		{"?limit=500", 100, "limit=100&offset=100", ""},
		{"?limit=0", 100, "limit=100&offset=100", ""},
		{"?limit=bogus", 50, "limit=50&offset=50", ""},
		{"?offset=1000", 0, "", "limit=50&offset=950"},
	}
	for _, tt := range tests {
		page := obj(mustCall(t, s, 200, "GET", "/api/ipam/namespaces/"+tt.query, nil))
		if got := len(page["results"].([]any)); got != tt.wantResults {
			t.Errorf("%q: %d results, want %d", tt.query, got, tt.wantResults)
		}
		if page["count"] != float64(130) {
			t.Errorf("%q: count = %v, want 130", tt.query, page["count"])
		}
		for _, link := range []struct{ name, want string }{{"next", tt.wantNext}, {"previous", tt.wantPrev}} {
			got := ""
			if u, ok := page[link.name].(string); ok {
				pu, err := url.Parse(u)
				if err != nil || !strings.HasPrefix(u, s.URL()+"/api/ipam/namespaces/") {
					t.Errorf("%q: %s = %q, not a link to this endpoint", tt.query, link.name, u)
				}
				got = pu.RawQuery
			}
			if got != link.want {
				t.Errorf("%q: %s query = %q, want %q", tt.query, link.name, got, link.want)
			}
		}
	}
}

func TestLimitZeroWithoutMaximumReturnsAll(t *testing.T) {
	s := NewServer(WithMaxPageSize(0))
	defer s.Close()
	createNamespaces(t, s, 1500)
	page := obj(mustCall(t, s, 200, "GET", "/api/ipam/namespaces/?limit=0", nil))
	if got := len(page["results"].([]any)); got != 1501 || page["next"] != nil {
		t.Errorf("limit=0: %d results, next %v; want 1501 and null", got, page["next"])
	}
}

func TestPagesFollowModelOrdering(t *testing.T) {
	s := NewServer()
	defer s.Close()
	createNamespaces(t, s, 30)
	var names []string
	for off := 0; off < 31; off += 7 {
		page := obj(mustCall(t, s, 200, "GET", fmt.Sprintf("/api/ipam/namespaces/?limit=7&offset=%d", off), nil))
		for _, r := range page["results"].([]any) {
			names = append(names, obj(r)["name"].(string))
		}
	}
	if len(names) != 31 || names[0] != "Global" || names[1] != "ns-000" || names[30] != "ns-029" {
		t.Errorf("names in pages = %v, want Global then ns-000..ns-029", names)
	}
}

func TestStrictFiltering(t *testing.T) {
	s := newSeeded(t)
	tests := []struct {
		path     string
		wantCode int
		wantBody string
	}{
		{"/api/ipam/prefixes/?bogus=1", 400, `{"bogus":["Unknown filter field"]}`},
		{"/api/ipam/prefixes/?namespace=nope", 400, `{"namespace":["Select a valid choice. nope is not one of the available choices."]}`},
		{"/api/ipam/prefixes/?cf_nope=1", 400, `{"cf_nope":["Unknown filter field"]}`},
		{"/api/ipam/prefixes/?id=not-a-uuid", 400, `{"id":["Enter a valid UUID."]}`},
		{"/api/ipam/vlans/?vid=x", 400, `{"vid":["Enter a whole number."]}`},
		{"/api/ipam/prefixes/?namespace=site-a&tags=blue&depth=0&exclude_m2m=false", 200, ""},
		{"/api/ipam/vlans/?vlan_group=nope", 400, `{"vlan_group":["Select a valid choice. nope is not one of the available choices."]}`},
	}
	for _, tt := range tests {
		status, v := call(t, s, "GET", tt.path, nil)
		if status != tt.wantCode || (tt.wantBody != "" && jsonString(v) != tt.wantBody) {
			t.Errorf("GET %s = %d %s, want %d %s", tt.path, status, jsonString(v), tt.wantCode, tt.wantBody)
		}
	}
}

func TestExcludeM2MIsUnknownBefore24(t *testing.T) {
	s := NewServer(WithVersion("2.3"))
	defer s.Close()
	status, v := call(t, s, "GET", "/api/ipam/prefixes/?exclude_m2m=false", nil)
	if status != 400 || jsonString(v) != `{"exclude_m2m":["Unknown filter field"]}` {
		t.Errorf("exclude_m2m on 2.3 = %d %s, want 400 unknown filter", status, jsonString(v))
	}
}

func TestFilters(t *testing.T) {
	s := newSeeded(t)
	g := idOf(mustCall(t, s, 201, "POST", "/api/ipam/vlan-groups/", map[string]any{"name": "g1"}))
	mustCall(t, s, 201, "POST", "/api/ipam/vlan-groups/", map[string]any{"name": "g2"})
	mustCall(t, s, 201, "POST", "/api/ipam/vlans/", []any{
		map[string]any{"vid": 10, "name": "a", "status": "Active", "vlan_group": g, "tags": []any{map[string]any{"name": "blue"}}},
		map[string]any{"vid": 11, "name": "b", "status": "Active", "vlan_group": map[string]any{"name": "g2"}},
		map[string]any{"vid": 12, "name": "c", "status": "Active"},
	})
	mustCall(t, s, 201, "POST", "/api/extras/custom-fields/", map[string]any{"key": "owner", "label": "Owner", "type": "text", "content_types": []string{"ipam.vlan"}})
	mustCall(t, s, 201, "POST", "/api/extras/custom-fields/", map[string]any{"key": "exact_owner", "label": "Exact owner", "type": "text", "filter_logic": "exact", "content_types": []string{"ipam.vlan"}})
	vlans := mustCall(t, s, 200, "GET", "/api/ipam/vlans/", nil)
	for _, v := range obj(vlans)["results"].([]any) {
		mustCall(t, s, 200, "PATCH", "/api/ipam/vlans/"+idOf(v)+"/", map[string]any{"custom_fields": map[string]any{"owner": "static:" + obj(v)["name"].(string) + "x", "exact_owner": "static:" + obj(v)["name"].(string)}})
	}
	tests := []struct {
		query string
		want  int
	}{
		{"vlan_group=g1", 1},
		{"vlan_group=g1&vlan_group=g2", 2},
		{"vlan_group=" + g, 1},
		{"vid=11&vid=12", 2},
		{"tags=blue", 1},
		{"cf_owner=STATIC:", 3}, // loose: case-insensitive substring
		{"cf_exact_owner=static:a", 1},
		{"cf_exact_owner=static:", 0},
		{"name=c", 1},
	}
	for _, tt := range tests {
		page := obj(mustCall(t, s, 200, "GET", "/api/ipam/vlans/?"+tt.query, nil))
		if page["count"] != float64(tt.want) {
			t.Errorf("vlans?%s: count %v, want %d", tt.query, page["count"], tt.want)
		}
	}
}

func TestUnstableTies(t *testing.T) {
	s := newSeeded(t, WithUnstableTies())
	var namespaces, prefixes, ips []any
	for i := range 5 {
		ns := fmt.Sprintf("tie-%d", i)
		namespaces = append(namespaces, map[string]any{"name": ns})
		prefixes = append(prefixes, map[string]any{"prefix": "10.0.0.0/24", "status": "Active", "namespace": map[string]any{"name": ns}})
		ips = append(ips, map[string]any{"address": "10.0.0.1/24", "status": "Active", "namespace": map[string]any{"name": ns}})
	}
	mustCall(t, s, 201, "POST", "/api/ipam/namespaces/", namespaces)
	mustCall(t, s, 201, "POST", "/api/ipam/prefixes/", prefixes)
	mustCall(t, s, 201, "POST", "/api/ipam/ip-addresses/", ips)
	// Five addresses tie; a first page of one is any of them.
	firsts := map[string]bool{}
	for range 50 {
		page := obj(mustCall(t, s, 200, "GET", "/api/ipam/ip-addresses/?limit=1", nil))
		firsts[idOf(page["results"].([]any)[0])] = true
	}
	if len(firsts) < 2 {
		t.Errorf("50 first pages over 5 tied addresses all began with the same one; want ties in a fresh order each time")
	}
}
