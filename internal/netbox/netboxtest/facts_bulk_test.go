package netboxtest

import (
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"
)

// TestFactBulkWritesAreAllOrNothing pins how NetBox 4.7 answers a bulk
// write with bad entries: the whole request is rolled back, and the answer
// names every bad entry, so a writer can set those aside and resend the
// rest without bisecting. Creates (and entries naming no object) are named
// by their index in the request, updates and deletes by object id. A
// validation failure is 400; a delete blocked by objects that still refer
// to the object is 409, as a single delete is.
func TestFactBulkWritesAreAllOrNothing(t *testing.T) {
	s := New(t)
	site := s.ID(t, "dcim.site", "DC-A11")
	group := create(t, s, "/api/ipam/vlan-groups/", map[string]any{
		"name": "a11-12-network", "slug": "a11-12-network", "scope_type": "dcim.site", "scope_id": site, "vid_ranges": [][]int{{100, 199}},
	})
	vlan := func(vid int, name string) map[string]any {
		return map[string]any{"group": group, "vid": vid, "name": name}
	}
	vlans := createAll(t, s, "/api/ipam/vlans/", vlan(100, "taken"), vlan(101, "b"))
	taken, b := vlans[0], vlans[1]
	vrfs := createAll(t, s, "/api/ipam/vrfs/", map[string]any{"name": "free"}, map[string]any{"name": "used"})
	free, used := vrfs[0], vrfs[1]
	create(t, s, "/api/ipam/prefixes/", map[string]any{"prefix": "10.11.0.0/24", "vrf": used})

	const missing = 999999
	for _, tt := range []struct {
		name   string
		method string
		kind   string
		body   []any
		status int
		detail string
		bad    string // the entries named, as bulkError.named lists them
	}{
		{"create: one bad value among good ones", http.MethodPost, "ipam.vlan",
			[]any{vlan(150, "ok1"), vlan(5000, "bad"), vlan(151, "ok2")},
			400, "1 of 3 objects could not be created.", "index 1: vid"},
		// Each entry is saved before the next is validated, so a batch
		// clashing with itself is caught like a clash with the database.
		{"create: two entries with one natural key", http.MethodPost, "ipam.vlan",
			[]any{vlan(160, "x"), vlan(160, "y")},
			400, "1 of 2 objects could not be created.", "index 1: __all__"},
		{"create: a clash with an existing object", http.MethodPost, "ipam.vlan",
			[]any{vlan(100, "dup")},
			400, "1 of 1 objects could not be created.", "index 0: __all__"},
		{"create: a vid outside the group's ranges", http.MethodPost, "ipam.vlan",
			[]any{vlan(152, "ok"), vlan(200, "out")},
			400, "1 of 2 objects could not be created.", "index 1: vid"},
		{"create: an entry that is not an object", http.MethodPost, "ipam.vlan",
			[]any{vlan(170, "ok"), "x"},
			400, "1 of 2 objects could not be created.", "index 1: __all__"},
		{"update: one bad value", http.MethodPatch, "ipam.vlan",
			[]any{map[string]any{"id": taken, "name": "renamed"}, map[string]any{"id": b, "vid": 5000}},
			400, "1 of 2 objects could not be updated.", fmt.Sprintf("id %d: vid", b)},
		// A missing id fails the batch before anything is tried.
		{"update: an id that does not exist", http.MethodPatch, "ipam.vlan",
			[]any{map[string]any{"id": taken, "name": "renamed"}, map[string]any{"id": missing, "name": "x"}},
			400, "1 of 2 objects could not be found.", fmt.Sprintf("id %d: id", missing)},
		{"update: an entry without id", http.MethodPatch, "ipam.vlan",
			[]any{map[string]any{"id": taken, "name": "renamed"}, map[string]any{"name": "x"}},
			400, "1 of 2 objects failed validation.", "index 1: id"},
		{"update: an id listed twice", http.MethodPatch, "ipam.vlan",
			[]any{map[string]any{"id": taken, "name": "x"}, map[string]any{"id": taken, "name": "y"}},
			400, "1 of 2 objects are listed more than once.", fmt.Sprintf("id %d: id", taken)},
		{"delete: a VRF a prefix is in", http.MethodDelete, "ipam.vrf",
			[]any{map[string]any{"id": free}, map[string]any{"id": used}},
			409, "1 of 2 objects could not be deleted.", fmt.Sprintf("id %d: __all__", used)},
		{"delete: an id that does not exist", http.MethodDelete, "ipam.vrf",
			[]any{map[string]any{"id": free}, map[string]any{"id": missing}},
			400, "1 of 2 objects could not be found.", fmt.Sprintf("id %d: id", missing)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := state(t, s, tt.kind)
			path, _ := endpoint(tt.kind)
			r := s.Do(t, tt.method, path, tt.body, nil)
			var got bulkError
			r.JSON(t, &got)
			if r.Status != tt.status || got.Detail != tt.detail || got.named() != tt.bad {
				t.Errorf("%s %s: %d %q naming %q, want %d %q naming %q\n%s", tt.method, path, r.Status, got.Detail, got.named(), tt.status, tt.detail, tt.bad, r.Body)
			}
			if after := state(t, s, tt.kind); !maps.Equal(before, after) {
				t.Errorf("a failed bulk write changed %s: %v -> %v", tt.kind, before, after)
			}
		})
	}
}

// TestFactDeleteOfAnObjectInUse pins what deleting an object others refer
// to does: NetBox protects VRFs, VLANs, VLAN groups and RIRs (409, naming
// the dependants), but a prefix is not a parent in its model: deleting it
// leaves its IP addresses, and a tag is taken off what carried it.
func TestFactDeleteOfAnObjectInUse(t *testing.T) {
	s := New(t)
	group := create(t, s, "/api/ipam/vlan-groups/", map[string]any{"name": "g", "slug": "g"})
	tag := create(t, s, "/api/extras/tags/", map[string]any{"name": "managed-by-ipsync", "slug": "managed-by-ipsync"})
	vlan := create(t, s, "/api/ipam/vlans/", map[string]any{"group": group, "vid": 100, "name": "v", "tags": []map[string]any{{"name": "managed-by-ipsync"}}})
	vrf := create(t, s, "/api/ipam/vrfs/", map[string]any{"name": "a11"})
	prefix := create(t, s, "/api/ipam/prefixes/", map[string]any{"prefix": "10.11.0.0/24", "vrf": vrf, "vlan": vlan})
	create(t, s, "/api/ipam/ip-addresses/", map[string]any{"address": "10.11.0.5/24", "vrf": vrf})
	rir := create(t, s, "/api/ipam/rirs/", map[string]any{"name": "ripe", "slug": "ripe"})
	create(t, s, "/api/ipam/asns/", map[string]any{"asn": 65011, "rir": rir})

	for _, tt := range []struct {
		name   string
		kind   string
		id     int
		status int
		then   func(t *testing.T) // what is left afterwards
	}{
		{"VRF holding a prefix and an address", "ipam.vrf", vrf, 409, nil},
		{"VLAN a prefix is on", "ipam.vlan", vlan, 409, nil},
		{"VLAN group holding a VLAN", "ipam.vlangroup", group, 409, nil},
		{"RIR of an ASN", "ipam.rir", rir, 409, nil},
		{"prefix holding an address", "ipam.prefix", prefix, 204, func(t *testing.T) {
			if n := s.Count(t, "ipam.ipaddress"); n != 1 {
				t.Errorf("%d addresses left after their prefix was deleted, want 1", n)
			}
		}},
		{"tag on a VLAN", "extras.tag", tag, 204, func(t *testing.T) {
			if got := s.Objects(t, "ipam.vlan")[0]["tags"]; fmt.Sprint(got) != "[]" {
				t.Errorf("the VLAN's tags after the tag was deleted = %v, want none", got)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := s.Do(t, http.MethodDelete, detailPath(t, tt.kind, tt.id), nil, nil)
			var body struct {
				Detail string `json:"detail"`
			}
			if r.Status == 409 {
				r.JSON(t, &body)
			}
			if r.Status != tt.status || tt.status == 409 && !strings.Contains(body.Detail, "dependent objects were found") {
				t.Errorf("DELETE %s %d: %d %s, want %d (409 naming the dependent objects)", tt.kind, tt.id, r.Status, r.Body, tt.status)
			}
			if tt.then != nil {
				tt.then(t)
			}
		})
	}
}
