package emulator

import (
	"testing"

	"github.com/google/uuid"
)

func TestValidationBodies(t *testing.T) {
	s := newSeeded(t)
	g := idOf(mustCall(t, s, 201, "POST", "/api/ipam/vlan-groups/", map[string]any{"name": "g1", "range": "100-199"}))
	mustCall(t, s, 201, "POST", "/api/ipam/vlans/", map[string]any{"vid": 100, "name": "v100", "status": "Active", "vlan_group": g})
	mustCall(t, s, 201, "POST", "/api/ipam/prefixes/", map[string]any{"prefix": "10.0.0.0/24", "status": "Active", "namespace": map[string]any{"name": "site-a"}})
	mustCall(t, s, 201, "POST", "/api/ipam/ip-addresses/", map[string]any{"address": "10.0.0.5/24", "status": "Active", "namespace": map[string]any{"name": "site-a"}})
	existing := idOf(mustCall(t, s, 201, "POST", "/api/ipam/namespaces/", map[string]any{"name": "taken"}))

	tests := []struct {
		name string
		path string
		body map[string]any
		want string
	}{
		{"namespace name", "/api/ipam/namespaces/", map[string]any{"name": "taken"}, `{"name":["namespace with this name already exists."]}`},
		{"namespace id", "/api/ipam/namespaces/", map[string]any{"id": existing, "name": "other"}, `{"id":["Namespace with this Id already exists."]}`},
		{"vlan group name", "/api/ipam/vlan-groups/", map[string]any{"name": "g1"}, `{"name":["VLAN group with this name already exists."]}`},
		{"vlan group range", "/api/ipam/vlan-groups/", map[string]any{"name": "g2", "range": "0-5000"}, `{"range":["Invalid value. Specify a range value between 1-4094"]}`},
		{"vlan vid", "/api/ipam/vlans/", map[string]any{"vid": 100, "name": "other", "status": "Active", "vlan_group": g}, `{"non_field_errors":["The fields vlan_group, vid must make a unique set."]}`},
		{"vlan name", "/api/ipam/vlans/", map[string]any{"vid": 101, "name": "v100", "status": "Active", "vlan_group": g}, `{"non_field_errors":["The fields vlan_group, name must make a unique set."]}`},
		{"vlan outside group range", "/api/ipam/vlans/", map[string]any{"vid": 300, "name": "v300", "status": "Active", "vlan_group": g}, `{"vid":["VLAN ID is not contained in VLAN Group range (100-199)"]}`},
		{"vlan vid bounds", "/api/ipam/vlans/", map[string]any{"vid": 4095, "name": "big", "status": "Active"}, `{"vid":["Ensure this value is less than or equal to 4094."]}`},
		{"vlan status required", "/api/ipam/vlans/", map[string]any{"vid": 5, "name": "nostatus"}, `{"status":["This field is required."]}`},
		{"prefix unique", "/api/ipam/prefixes/", map[string]any{"prefix": "10.0.0.0/24", "status": "Active", "namespace": map[string]any{"name": "site-a"}}, `{"__all__":["Prefix with this Namespace, Network and Prefix length already exists."]}`},
		{"prefix status unknown", "/api/ipam/prefixes/", map[string]any{"prefix": "10.9.0.0/24", "status": map[string]any{"name": "Bogus"}}, `{"status":["Related object not found using the provided attributes: {'name': 'Bogus'}"]}`},
		{"prefix namespace unknown id", "/api/ipam/prefixes/", map[string]any{"prefix": "10.9.0.0/24", "status": "Active", "namespace": "6f1f3f4e-0000-4000-8000-000000000000"}, `{"namespace":["Related object not found using the provided attributes: {'pk': UUID('6f1f3f4e-0000-4000-8000-000000000000')}"]}`},
		{"prefix location unknown", "/api/ipam/prefixes/", map[string]any{"prefix": "10.9.0.0/24", "status": "Active", "location": map[string]any{"name": "nowhere"}}, `{"location":["Related object not found using the provided attributes: {'name': 'nowhere'}"]}`},
		{"prefix tag unknown", "/api/ipam/prefixes/", map[string]any{"prefix": "10.9.0.0/24", "status": "Active", "tags": []any{map[string]any{"name": "red"}}}, `{"tags":["Related object not found using the provided attributes: {'name': 'red'}"]}`},
		{"prefix type", "/api/ipam/prefixes/", map[string]any{"prefix": "10.9.0.0/24", "status": "Active", "type": "bogus"}, `{"type":["bogus is not a valid choice."]}`},
		{"ip needs parent or namespace", "/api/ipam/ip-addresses/", map[string]any{"address": "10.0.0.6/24", "status": "Active"}, `{"__all__":["One of parent or namespace must be provided"]}`},
		{"ip without containing prefix", "/api/ipam/ip-addresses/", map[string]any{"address": "192.0.2.1/24", "status": "Active", "namespace": map[string]any{"name": "site-a"}}, `{"namespace":["No suitable parent Prefix for 192.0.2.1 exists in Namespace site-a"]}`},
		{"ip unique", "/api/ipam/ip-addresses/", map[string]any{"address": "10.0.0.5/25", "status": "Active", "namespace": map[string]any{"name": "site-a"}}, `{"__all__":["IP address 10.0.0.5/25 already exists in 10.0.0.0/24.","IP address with this Parent and Host already exists."]}`},
		{"ip address format", "/api/ipam/ip-addresses/", map[string]any{"address": "10.0.0.x", "status": "Active", "namespace": map[string]any{"name": "site-a"}}, `{"address":["Invalid IP address format: 10.0.0.x"]}`},
		{"asn unique", "/api/plugins/bgp/autonomous-systems/", map[string]any{"asn": 65000}, `{"asn":["Autonomous system with this ASN already exists."]}`},
	}
	mustCall(t, s, 201, "POST", "/api/plugins/bgp/autonomous-systems/", map[string]any{"asn": 65000})
	for _, tt := range tests {
		status, v := call(t, s, "POST", tt.path, tt.body)
		if status != 400 || jsonString(v) != tt.want {
			t.Errorf("%s: got %d %s, want 400 %s", tt.name, status, jsonString(v), tt.want)
		}
	}
}

func TestStatusMustAllowContentType(t *testing.T) {
	s := newSeeded(t)
	mustCall(t, s, 201, "POST", "/api/extras/statuses/", map[string]any{"name": "OnlyVLANs", "content_types": []string{"ipam.vlan"}})
	status, v := call(t, s, "POST", "/api/ipam/prefixes/", map[string]any{"prefix": "10.1.0.0/16", "status": map[string]any{"name": "OnlyVLANs"}})
	if want := `{"status":["Related object not found using the provided attributes: {'name': 'OnlyVLANs'}"]}`; status != 400 || jsonString(v) != want {
		t.Errorf("prefix with a VLAN-only status: %d %s, want 400 %s", status, jsonString(v), want)
	}
}

func TestVLANGroupLocationTypeAndResize(t *testing.T) {
	s := newSeeded(t)
	mustCall(t, s, 201, "POST", "/api/dcim/location-types/", map[string]any{"name": "Region", "content_types": []string{"dcim.device"}})
	mustCall(t, s, 201, "POST", "/api/dcim/locations/", map[string]any{"name": "emea", "location_type": map[string]any{"name": "Region"}, "status": "Active"})
	status, v := call(t, s, "POST", "/api/ipam/vlan-groups/", map[string]any{"name": "g", "location": map[string]any{"name": "emea"}})
	if want := `{"location":["VLAN groups may not associate to locations of type \"Region\"."]}`; status != 400 || jsonString(v) != want {
		t.Errorf("group at a Region: %d %s, want 400 %s", status, jsonString(v), want)
	}
	g := idOf(mustCall(t, s, 201, "POST", "/api/ipam/vlan-groups/", map[string]any{"name": "g", "location": map[string]any{"name": "a11"}, "range": "300-310, 100-199,150-250"}))
	if got := obj(mustCall(t, s, 200, "GET", "/api/ipam/vlan-groups/"+g+"/", nil))["range"]; got != "100-250,300-310" {
		t.Errorf("range = %v, want normalized 100-250,300-310", got)
	}
	mustCall(t, s, 201, "POST", "/api/ipam/vlans/", map[string]any{"vid": 305, "name": "v", "status": "Active", "vlan_group": g})
	status, v = call(t, s, "PATCH", "/api/ipam/vlan-groups/"+g+"/", map[string]any{"range": "100-200"})
	if want := `{"range":["VLAN group range may not be re-sized due to existing VLANs (IDs: 305)."]}`; status != 400 || jsonString(v) != want {
		t.Errorf("shrink below a VLAN: %d %s, want 400 %s", status, jsonString(v), want)
	}
}

func TestParentComputation(t *testing.T) {
	s := newSeeded(t)
	ns := map[string]any{"name": "site-a"}
	p16 := idOf(mustCall(t, s, 201, "POST", "/api/ipam/prefixes/", map[string]any{"prefix": "10.1.0.0/16", "status": "Active", "namespace": ns, "type": "container"}))
	ip := idOf(mustCall(t, s, 201, "POST", "/api/ipam/ip-addresses/", map[string]any{"address": "10.1.2.3/24", "status": "Active", "namespace": ns}))
	parentOf := func(path string) string {
		p, _ := obj(mustCall(t, s, 200, "GET", path, nil))["parent"].(map[string]any)
		id, _ := p["id"].(string)
		return id
	}
	if got := parentOf("/api/ipam/ip-addresses/" + ip + "/"); got != p16 {
		t.Fatalf("ip parent = %s, want the /16 %s", got, p16)
	}
	before := obj(mustCall(t, s, 200, "GET", "/api/ipam/ip-addresses/"+ip+"/", nil))["last_updated"]
	p24 := idOf(mustCall(t, s, 201, "POST", "/api/ipam/prefixes/", map[string]any{"prefix": "10.1.2.0/24", "status": "Active", "namespace": ns}))
	if got := parentOf("/api/ipam/ip-addresses/" + ip + "/"); got != p24 {
		t.Errorf("after creating the /24, ip parent = %s, want %s", got, p24)
	}
	if got := parentOf("/api/ipam/prefixes/" + p24 + "/"); got != p16 {
		t.Errorf("/24 parent = %s, want the /16", got)
	}
	if after := obj(mustCall(t, s, 200, "GET", "/api/ipam/ip-addresses/"+ip+"/", nil))["last_updated"]; after != before {
		t.Errorf("reparenting changed the IP's last_updated %v -> %v; Nautobot reparents without saving", before, after)
	}
	// A /20 between them takes the /24 as its child.
	p20 := idOf(mustCall(t, s, 201, "POST", "/api/ipam/prefixes/", map[string]any{"prefix": "10.1.0.0/20", "status": "Active", "namespace": ns}))
	if got := parentOf("/api/ipam/prefixes/" + p24 + "/"); got != p20 {
		t.Errorf("/24 parent after creating the /20 = %s, want %s", got, p20)
	}
	// An explicit wrong parent is refused.
	status, v := call(t, s, "POST", "/api/ipam/ip-addresses/", map[string]any{"address": "10.1.2.4/24", "status": "Active", "parent": p16})
	if status != 400 || obj(v)["parent"] == nil {
		t.Errorf("ip with a parent that is not the closest: %d %s, want 400 on parent", status, jsonString(v))
	}
	mustCall(t, s, 204, "DELETE", "/api/ipam/prefixes/"+p24+"/", nil)
	if got := parentOf("/api/ipam/ip-addresses/" + ip + "/"); got != p20 {
		t.Errorf("after deleting the /24, ip parent = %s, want the /20", got)
	}
	mustCall(t, s, 204, "DELETE", "/api/ipam/prefixes/", []any{map[string]any{"id": p20}})
	status, v = call(t, s, "DELETE", "/api/ipam/prefixes/"+p16+"/", nil)
	if status != 409 {
		t.Errorf("delete the root prefix of an IP: %d %s, want 409", status, jsonString(v))
	}
}

func TestClientChosenIDAndTimestamps(t *testing.T) {
	s := newSeeded(t)
	id := uuid.NewString()
	got := obj(mustCall(t, s, 201, "POST", "/api/ipam/namespaces/", map[string]any{"id": id, "name": "mine"}))
	if got["id"] != id || got["created"] != got["last_updated"] {
		t.Fatalf("created %v, want id %s and created == last_updated", jsonString(got), id)
	}
	upd := obj(mustCall(t, s, 200, "PATCH", "/api/ipam/namespaces/"+id+"/", map[string]any{"description": "x"}))
	if upd["last_updated"] == got["last_updated"] || upd["created"] != got["created"] {
		t.Errorf("update: last_updated %v -> %v, created %v -> %v; want a new last_updated only", got["last_updated"], upd["last_updated"], got["created"], upd["created"])
	}
	mustCall(t, s, 404, "GET", "/api/ipam/namespaces/"+uuid.NewString()+"/", nil)
	mustCall(t, s, 404, "PATCH", "/api/ipam/namespaces/"+uuid.NewString()+"/", map[string]any{"description": "x"})
}

func TestCustomFields(t *testing.T) {
	s := newSeeded(t)
	mustCall(t, s, 201, "POST", "/api/extras/custom-fields/", map[string]any{"key": "vni", "label": "VNI", "type": "integer", "content_types": []string{"ipam.prefix"}})
	p := obj(mustCall(t, s, 201, "POST", "/api/ipam/prefixes/", map[string]any{"prefix": "10.2.0.0/24", "status": "Active",
		"custom_fields": map[string]any{"vni": 5001, "undefined": "dropped"}}))
	if cf := jsonString(p["custom_fields"]); cf != `{"vni":5001}` {
		t.Errorf("custom_fields = %s, want only the defined vni", cf)
	}
	status, v := call(t, s, "POST", "/api/ipam/prefixes/", map[string]any{"prefix": "10.3.0.0/24", "status": "Active", "custom_fields": map[string]any{"vni": "five"}})
	if want := `{"__all__":["Invalid value for custom field 'vni': Value must be an integer."]}`; status != 400 || jsonString(v) != want {
		t.Errorf("bad vni: %d %s, want 400 %s", status, jsonString(v), want)
	}

	strict := newSeeded(t, WithStrictCustomFields())
	status, v = call(t, strict, "POST", "/api/ipam/prefixes/", map[string]any{"prefix": "10.3.0.0/24", "status": "Active", "custom_fields": map[string]any{"nope": 1}})
	if status != 400 || obj(v)["custom_fields"] == nil {
		t.Errorf("strict server, unknown key: %d %s, want 400 on custom_fields", status, jsonString(v))
	}
}

func TestPrefixLocations(t *testing.T) {
	s := newSeeded(t)
	if err := s.Seed(SeedData{Locations: []string{"a12"}}); err != nil {
		t.Fatal(err)
	}
	p := obj(mustCall(t, s, 201, "POST", "/api/ipam/prefixes/", map[string]any{"prefix": "10.4.0.0/24", "status": "Active", "location": map[string]any{"name": "a11"}}))
	if _, has := p["location"]; has {
		t.Errorf("prefix response has write-only location: %s", jsonString(p))
	}
	mustCall(t, s, 201, "POST", "/api/ipam/prefix-location-assignments/", map[string]any{"prefix": p["id"], "location": map[string]any{"name": "a12"}})
	status, v := call(t, s, "POST", "/api/ipam/prefix-location-assignments/", map[string]any{"prefix": p["id"], "location": map[string]any{"name": "a12"}})
	if status != 400 || jsonString(v) != `{"non_field_errors":["The fields prefix, location must make a unique set."]}` {
		t.Errorf("duplicate assignment: %d %s", status, jsonString(v))
	}
	// Nautobot 3.x leaves many-to-many fields out unless asked.
	got := obj(mustCall(t, s, 200, "GET", "/api/ipam/prefixes/"+p["id"].(string)+"/", nil))
	if _, has := got["locations"]; has {
		t.Errorf("3.x default response includes locations")
	}
	page := obj(mustCall(t, s, 200, "GET", "/api/ipam/prefixes/?exclude_m2m=false&location=a12", nil))
	res := page["results"].([]any)
	if len(res) != 1 || len(obj(res[0])["locations"].([]any)) != 2 {
		t.Errorf("prefixes at a12 with m2m: %s, want one prefix with 2 locations", jsonString(page))
	}
	status, v = call(t, s, "PATCH", "/api/ipam/prefixes/"+p["id"].(string)+"/", map[string]any{"location": map[string]any{"name": "a11"}})
	if status != 412 {
		t.Errorf("setting location on a prefix with two: %d %s, want 412", status, jsonString(v))
	}
}
