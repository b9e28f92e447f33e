package netboxtest

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
)

// TestFactCustomFieldObjectTypes pins custom field assignment in 4.7: the
// models a field is on are "object_types" (the pre-4.0 "content_types" is
// refused), a value for a field not on the model is refused with 400, an
// object without a value shows the field as null, and adding a model to
// object_types makes the field writable there.
func TestFactCustomFieldObjectTypes(t *testing.T) {
	s := New(t)
	if r := s.Do(t, http.MethodPost, "/api/extras/custom-fields/", map[string]any{
		"name": "ipsync_owner", "type": "text", "content_types": []string{"ipam.vlan"},
	}, nil); r.Status != http.StatusBadRequest {
		t.Errorf("a custom field with content_types: %d %s, want 400", r.Status, r.Body)
	}
	cf := create(t, s, "/api/extras/custom-fields/", map[string]any{
		"name": "ipsync_owner", "type": "text", "object_types": []string{"ipam.vlan"},
	})
	var got struct {
		ObjectTypes []string `json:"object_types"`
	}
	s.Call(t, http.MethodGet, detailPath(t, "extras.customfield", cf), nil, &got)
	if !slices.Equal(got.ObjectTypes, []string{"ipam.vlan"}) {
		t.Errorf("object_types read back as %v", got.ObjectTypes)
	}
	vrf := create(t, s, "/api/ipam/vrfs/", map[string]any{"name": "a11"})
	group := create(t, s, "/api/ipam/vlan-groups/", map[string]any{"name": "g", "slug": "g"})
	create(t, s, "/api/ipam/vlans/", map[string]any{"group": group, "vid": 100, "name": "v"})
	if v := s.Objects(t, "ipam.vlan")[0]["custom_fields"]; fmt.Sprint(v) != "map[ipsync_owner:<nil>]" {
		t.Errorf("a VLAN without a value has custom_fields %v, want the field as null", v)
	}
	owned := map[string]any{"custom_fields": map[string]any{"ipsync_owner": "static:default"}}
	for _, tt := range []struct {
		name       string
		objectType []string
		status     int
	}{
		{"not on the model", []string{"ipam.vlan"}, http.StatusBadRequest},
		{"added to the model", []string{"ipam.vlan", "ipam.vrf"}, http.StatusOK},
	} {
		s.Call(t, http.MethodPatch, detailPath(t, "extras.customfield", cf), map[string]any{"object_types": tt.objectType}, nil)
		if r := s.Do(t, http.MethodPatch, detailPath(t, "ipam.vrf", vrf), owned, nil); r.Status != tt.status {
			t.Errorf("%s: PATCH a VRF's ipsync_owner: %d %s, want %d", tt.name, r.Status, r.Body, tt.status)
		}
	}
}

// TestFactTagsByName pins how tags are written: a list of objects naming
// a tag by name (or slug, or a bare id) that must already exist; a bare
// name is refused. tags replaces the whole set, add_tags and remove_tags
// change it.
func TestFactTagsByName(t *testing.T) {
	s := New(t)
	blue := s.ID(t, "extras.tag", "blue")
	id := create(t, s, "/api/ipam/vrfs/", map[string]any{"name": "a11", "tags": []map[string]any{{"name": "red"}}})
	path := detailPath(t, "ipam.vrf", id)
	for _, tt := range []struct {
		name   string
		body   map[string]any
		status int
		want   []string // the tags afterwards, sorted
	}{
		{"by name replaces the set", map[string]any{"tags": []map[string]any{{"name": "blue"}}}, 200, []string{"blue"}},
		{"by slug", map[string]any{"tags": []map[string]any{{"slug": "pxe"}}}, 200, []string{"pxe"}},
		{"by id", map[string]any{"tags": []any{blue}}, 200, []string{"blue"}},
		{"add_tags", map[string]any{"add_tags": []map[string]any{{"name": "red"}}}, 200, []string{"blue", "red"}},
		{"remove_tags", map[string]any{"remove_tags": []map[string]any{{"name": "blue"}}}, 200, []string{"red"}},
		{"a tag that does not exist", map[string]any{"tags": []map[string]any{{"name": "no-such-tag"}}}, 400, []string{"red"}},
		{"a bare name", map[string]any{"tags": []string{"blue"}}, 400, []string{"red"}},
	} {
		r := s.Do(t, http.MethodPatch, path, tt.body, nil)
		var got struct {
			Tags []struct {
				Name string `json:"name"`
			} `json:"tags"`
		}
		s.Call(t, http.MethodGet, path, nil, &got)
		var names []string
		for _, tag := range got.Tags {
			names = append(names, tag.Name)
		}
		slices.Sort(names)
		if r.Status != tt.status || !slices.Equal(names, tt.want) {
			t.Errorf("%s: %d, tags %v; want %d, tags %v\n%s", tt.name, r.Status, names, tt.status, tt.want, r.Body)
		}
	}
}

// TestFactVLANGroupUniquePerScope pins VLAN group uniqueness: name and
// slug are each unique within one scope (site, location, ...), repeat
// freely across scopes, and are not unique at all among unscoped groups.
func TestFactVLANGroupUniquePerScope(t *testing.T) {
	s := New(t)
	a11, b22 := s.ID(t, "dcim.site", "DC-A11"), s.ID(t, "dcim.site", "DC-B22")
	loc := create(t, s, "/api/dcim/locations/", map[string]any{"name": "row1", "slug": "row1", "site": a11})
	group := func(name, slug, scopeType string, scopeID int) map[string]any {
		g := map[string]any{"name": name, "slug": slug}
		if scopeType != "" {
			g["scope_type"], g["scope_id"] = scopeType, scopeID
		}
		return g
	}
	create(t, s, "/api/ipam/vlan-groups/", group("a11-12-network", "a11-12-network", "dcim.site", a11))
	create(t, s, "/api/ipam/vlan-groups/", group("free", "free", "", 0))
	for _, tt := range []struct {
		name   string
		body   map[string]any
		status int
	}{
		{"same name and slug, another site", group("a11-12-network", "a11-12-network", "dcim.site", b22), 201},
		{"same name and slug, a location of the site", group("a11-12-network", "a11-12-network", "dcim.location", loc), 201},
		{"same name, same site", group("a11-12-network", "other-slug", "dcim.site", a11), 400},
		{"same slug, same site", group("other-name", "a11-12-network", "dcim.site", a11), 400},
		{"same name and slug, both unscoped", group("free", "free", "", 0), 201},
	} {
		if r := s.Do(t, http.MethodPost, "/api/ipam/vlan-groups/", tt.body, nil); r.Status != tt.status {
			t.Errorf("%s: %d %s, want %d", tt.name, r.Status, r.Body, tt.status)
		}
	}
}
