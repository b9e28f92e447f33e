package netboxtest

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// page is one answer of a list endpoint.
type page struct {
	Count   *int             `json:"count"`
	Next    *string          `json:"next"`
	Results []map[string]any `json:"results"`
}

func ids(objs []map[string]any) []int {
	var out []int
	for _, o := range objs {
		out = append(out, int(o["id"].(float64)))
	}
	return out
}

// TestFactCursorPaging pins NetBox 4.7's cursor mode: ?start=<pk> returns
// objects with pk >= start in pk order, with count null (no COUNT query)
// and a next link starting after the last pk returned whenever the page is
// full, so a list whose size is a multiple of the limit ends with an empty
// page. start refuses to be combined with offset or ordering.
func TestFactCursorPaging(t *testing.T) {
	s := New(t)
	var bodies []map[string]any
	for i := range 5 {
		bodies = append(bodies, map[string]any{"name": fmt.Sprintf("vrf-%d", 5-i)})
	}
	all := createAll(t, s, "/api/ipam/vrfs/", bodies...)
	slices.Sort(all)

	for _, tt := range []struct {
		limit int
		pages []int // results per page
	}{
		{2, []int{2, 2, 1}},
		{5, []int{5, 0}},
		{1000, []int{5}},
	} {
		t.Run(fmt.Sprintf("limit %d", tt.limit), func(t *testing.T) {
			var seen, sizes []int
			next := fmt.Sprintf("/api/ipam/vrfs/?start=0&limit=%d&fields=id,name", tt.limit)
			for next != "" {
				var p page
				s.Do(t, http.MethodGet, next, nil, nil).JSON(t, &p)
				if p.Count != nil {
					t.Errorf("count = %d, want null in cursor mode", *p.Count)
				}
				seen = append(seen, ids(p.Results)...)
				sizes = append(sizes, len(p.Results))
				next = ""
				if p.Next != nil {
					u, err := url.Parse(*p.Next)
					if err != nil {
						t.Fatal(err)
					}
					if want := fmt.Sprint(seen[len(seen)-1] + 1); u.Query().Get("start") != want {
						t.Errorf("next = %s, want start=%s", *p.Next, want)
					}
					next = u.RequestURI()
				}
			}
			if !slices.Equal(seen, all) || !slices.Equal(sizes, tt.pages) {
				t.Errorf("pages of %v holding %v, want pages of %v holding %v in pk order", sizes, seen, tt.pages, all)
			}
		})
	}
	for _, q := range []string{"start=0&offset=2", "start=0&ordering=name"} {
		if r := s.Do(t, http.MethodGet, "/api/ipam/vrfs/?"+q, nil, nil); r.Status != http.StatusBadRequest {
			t.Errorf("GET ?%s: %d %s, want 400", q, r.Status, r.Body)
		}
	}
}

// TestFactFieldsShrinkAnswers pins ?fields= (exactly the fields named,
// nested ones whole, unknown names ignored), ?omit= and ?brief=.
func TestFactFieldsShrinkAnswers(t *testing.T) {
	s := New(t)
	group := create(t, s, "/api/ipam/vlan-groups/", map[string]any{"name": "g", "slug": "g"})
	create(t, s, "/api/ipam/vlans/", map[string]any{"group": group, "vid": 100, "name": "v", "tags": []map[string]any{{"name": "blue"}}})
	for _, tt := range []struct {
		query string
		want  string // the keys of the answer, sorted
	}{
		{"fields=id,vid,name", "id name vid"},
		{"fields=id,no_such_field", "id"},
		{"fields=id,group,tags", "group id tags"},
		{"brief=true", "description display id name url vid"},
	} {
		var p page
		s.Do(t, http.MethodGet, "/api/ipam/vlans/?"+tt.query, nil, nil).JSON(t, &p)
		if len(p.Results) != 1 {
			t.Fatalf("?%s: %d results, want 1", tt.query, len(p.Results))
		}
		var keys []string
		for k := range p.Results[0] {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if got := strings.Join(keys, " "); got != tt.want {
			t.Errorf("?%s gives %q, want %q", tt.query, got, tt.want)
		}
		if tt.query == "fields=id,group,tags" {
			g, _ := p.Results[0]["group"].(map[string]any)
			tags, _ := p.Results[0]["tags"].([]any)
			if g["name"] != "g" || len(tags) != 1 {
				t.Errorf("?%s: group %v, tags %v, want them whole", tt.query, g, tags)
			}
		}
	}
	var p page
	s.Do(t, http.MethodGet, "/api/ipam/vlans/?omit=tags,custom_fields,description", nil, nil).JSON(t, &p)
	for _, k := range []string{"tags", "custom_fields", "description"} {
		if _, ok := p.Results[0][k]; ok {
			t.Errorf("?omit= kept %s", k)
		}
	}
	if _, ok := p.Results[0]["vid"]; !ok {
		t.Errorf("?omit= dropped vid, which it did not name")
	}
}

// TestFactCustomFieldFilter pins ?cf_<name>=. A text field's filter logic
// defaults to "loose": a case-insensitive substring match, so
// cf_ipsync_owner=static:a also finds "static:ab" and "Static:A"; only a
// field created with filter_logic "exact" matches whole values. The filter
// is silently ignored -- every object returned -- where the field is
// unknown or not assigned to the model (its object_types). A reader scoped
// by the owner field must create it exact and make sure it is on the model,
// or it would read other owners' objects as its own.
func TestFactCustomFieldFilter(t *testing.T) {
	s := New(t)
	for _, cf := range []map[string]any{
		{"name": "ipsync_owner", "type": "text", "object_types": []string{"ipam.vlan"}},
		{"name": "ipsync_owner_exact", "type": "text", "object_types": []string{"ipam.vlan"}, "filter_logic": "exact"},
	} {
		s.Call(t, http.MethodPost, "/api/extras/custom-fields/", cf, nil)
	}
	group := create(t, s, "/api/ipam/vlan-groups/", map[string]any{"name": "g", "slug": "g"})
	vlan := func(vid int, owner any) map[string]any {
		return map[string]any{"group": group, "vid": vid, "name": fmt.Sprint(vid),
			"custom_fields": map[string]any{"ipsync_owner": owner, "ipsync_owner_exact": owner}}
	}
	vl := createAll(t, s, "/api/ipam/vlans/", vlan(100, "static:a"), vlan(101, "static:ab"), vlan(102, "Static:A"), vlan(103, nil))
	vrfs := createAll(t, s, "/api/ipam/vrfs/", map[string]any{"name": "a"}, map[string]any{"name": "b"})
	for _, tt := range []struct {
		path string
		want []int
	}{
		{"/api/ipam/vlans/?cf_ipsync_owner=static:a", vl[:3]},
		{"/api/ipam/vlans/?cf_ipsync_owner_exact=static:a", vl[:1]},
		{"/api/ipam/vlans/?cf_ipsync_owner_exact=static:a&cf_ipsync_owner_exact=static:ab", vl[:2]},
		{"/api/ipam/vlans/?cf_ipsync_owner=static:none", nil},
		{"/api/ipam/vlans/?cf_no_such_field=x", vl},
		{"/api/ipam/vrfs/?cf_ipsync_owner_exact=static:a", vrfs},
	} {
		var p page
		r := s.Do(t, http.MethodGet, tt.path+"&fields=id", nil, nil)
		r.JSON(t, &p)
		if got := ids(p.Results); r.Status != http.StatusOK || !slices.Equal(got, tt.want) {
			t.Errorf("GET %s: %d %v, want %v", tt.path, r.Status, got, tt.want)
		}
	}
}
