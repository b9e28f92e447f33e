package emulator

import (
	"testing"
)

func TestBulkCreateAllOrNone(t *testing.T) {
	s := newSeeded(t)
	status, v := call(t, s, "POST", "/api/ipam/vlan-groups/", []any{
		map[string]any{"name": "ok-1"},
		map[string]any{"name": "bad", "range": "9-5"},
		map[string]any{"name": "ok-2"},
		map[string]any{"name": "ok-1"},
	})
	// Items are validated against the state before the request, so the
	// second "ok-1" passes validation; the reversed range expands to no
	// VIDs, a blank range.
	want := `[{},{"range":["This field cannot be blank."]},{},{}]`
	if status != 400 || jsonString(v) != want {
		t.Errorf("bulk create with bad items: %d %s, want 400 %s", status, jsonString(v), want)
	}
	if n := s.Count("ipam.vlangroup"); n != 0 {
		t.Errorf("after a failed bulk create %d groups exist, want 0", n)
	}
	status, v = call(t, s, "POST", "/api/ipam/vlan-groups/", []any{map[string]any{"name": "ok-1"}, map[string]any{"name": "ok-1"}})
	if status != 500 || obj(v)["exception"] != "IntegrityError" {
		t.Errorf("bulk create of one name twice: %d %s, want 500 IntegrityError", status, jsonString(v))
	}
	if n := s.Count("ipam.vlangroup"); n != 0 {
		t.Errorf("after a bulk create that clashed with itself %d groups exist, want 0", n)
	}
	got := mustCall(t, s, 201, "POST", "/api/ipam/vlan-groups/", []any{map[string]any{"name": "ok-1"}, map[string]any{"name": "ok-2"}})
	if list, _ := got.([]any); len(list) != 2 || s.Count("ipam.vlangroup") != 2 {
		t.Errorf("bulk create: response %s, stored %d; want 2 and 2", jsonString(got), s.Count("ipam.vlangroup"))
	}
}

func TestBulkUpdateAllOrNone(t *testing.T) {
	s := newSeeded(t)
	created := mustCall(t, s, 201, "POST", "/api/ipam/namespaces/", []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}).([]any)
	a, b := idOf(created[0]), idOf(created[1])
	status, v := call(t, s, "PATCH", "/api/ipam/namespaces/", []any{
		map[string]any{"id": a, "description": "changed"},
		map[string]any{"id": b, "name": "a"},
	})
	if status != 400 || jsonString(v) != `{"name":["namespace with this name already exists."]}` {
		t.Errorf("bulk update with a clash: %d %s", status, jsonString(v))
	}
	if d := obj(mustCall(t, s, 200, "GET", "/api/ipam/namespaces/"+a+"/", nil))["description"]; d != "" {
		t.Errorf("after a failed bulk update a.description = %q, want unchanged", d)
	}
	status, v = call(t, s, "PATCH", "/api/ipam/namespaces/", []any{map[string]any{"description": "no id"}})
	if status != 400 || jsonString(v) != `[{"id":["This field is required."]}]` {
		t.Errorf("bulk update without id: %d %s", status, jsonString(v))
	}
	got := mustCall(t, s, 200, "PATCH", "/api/ipam/namespaces/", []any{
		map[string]any{"id": a, "description": "x"}, map[string]any{"id": b, "description": "y"},
		map[string]any{"id": "00000000-0000-4000-8000-000000000000", "description": "gone"},
	}).([]any)
	if len(got) != 2 {
		t.Errorf("bulk update of 2 known and 1 unknown id returned %d objects, want 2 (unknown ids are skipped)", len(got))
	}
}

func TestBulkDeleteAllOrNone(t *testing.T) {
	s := newSeeded(t)
	g := idOf(mustCall(t, s, 201, "POST", "/api/ipam/vlan-groups/", map[string]any{"name": "used"}))
	free := idOf(mustCall(t, s, 201, "POST", "/api/ipam/vlan-groups/", map[string]any{"name": "free"}))
	mustCall(t, s, 201, "POST", "/api/ipam/vlans/", map[string]any{"vid": 7, "name": "v", "status": "Active", "vlan_group": g})
	status, v := call(t, s, "DELETE", "/api/ipam/vlan-groups/", []any{map[string]any{"id": free}, map[string]any{"id": g}})
	if status != 409 {
		t.Errorf("bulk delete of a group in use: %d %s, want 409", status, jsonString(v))
	}
	if n := s.Count("ipam.vlangroup"); n != 2 {
		t.Errorf("after a refused bulk delete %d groups remain, want 2", n)
	}
	mustCall(t, s, 204, "DELETE", "/api/ipam/vlan-groups/", []any{map[string]any{"id": free}, map[string]any{"id": "00000000-0000-4000-8000-000000000000"}})
	if n := s.Count("ipam.vlangroup"); n != 1 {
		t.Errorf("after deleting one group %d remain, want 1", n)
	}
}
