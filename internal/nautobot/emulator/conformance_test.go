package emulator

import (
	"net/http"
	"testing"
)

// TestConformance runs one table of scenarios against the emulator and
// against real Nautobot servers, so that the emulator answers as Nautobot
// does wherever ipsync looks. The real server decides: when the emulator
// differs, the emulator is wrong. Expectations that differ between the
// 3.x and 2.4 lines are marked per line and hold for the emulator
// claiming that line too.
//
// Real servers come from scripts/nautobot-up.sh and are named by
// IPSYNC_NAUTOBOT_URL/IPSYNC_NAUTOBOT_TOKEN (3.x) and
// IPSYNC_NAUTOBOT_LTM_URL/IPSYNC_NAUTOBOT_LTM_TOKEN (2.4). Every scenario
// uses fresh names and deletes what it made, so a server can be used again.
func TestConformance(t *testing.T) {
	for _, spec := range conformanceTargets() {
		t.Run(spec.name, func(t *testing.T) {
			t.Parallel()
			tg, skip := spec.open(t)
			if tg == nil {
				t.Skip(skip)
			}
			before := inventory(t, tg)
			seed := map[string]string{}
			for _, sc := range append(conformanceScenarios(), changeLogScenarios()...) {
				t.Run(sc.name, func(t *testing.T) { runScenario(t, tg, seed, sc) })
			}
			if after := inventory(t, tg); after != before {
				t.Errorf("the scenarios left objects behind or removed some: before %s, after %s", before, after)
			}
		})
	}
}

type (
	fields = map[string]any
	items  = []any
)

// natural is a reference by natural key, the way ipsync writes one when it
// does not know the id.
func natural(name string) fields { return fields{"name": name} }

const (
	get   = http.MethodGet
	post  = http.MethodPost
	patch = http.MethodPatch
	del   = http.MethodDelete
)

// Object types, as the answers name them.
const (
	tNamespace = "ipam.namespace"
	tGroup     = "ipam.vlangroup"
	tVLAN      = "ipam.vlan"
	tPrefix    = "ipam.prefix"
	tIP        = "ipam.ipaddress"
	tAssign    = "ipam.prefixlocationassignment"
	tLocation  = "dcim.location"
	tStatus    = "extras.status"
	tRole      = "extras.role"
	tTag       = "extras.tag"
	tTenant    = "tenancy.tenant"
	tASN       = "nautobot_bgp_models.autonomoussystem"
)

func conformanceScenarios() []scenario {
	return []scenario{
		{name: "namespace create read update delete", steps: []step{
			{what: "create", method: post, path: "/api/ipam/namespaces/",
				body:   fields{"name": "conf-ns-{{sfx}}", "description": "d", "location": fields{"name": "a11"}, "tags": items{fields{"name": "blue"}}},
				status: 201, save: map[string]string{"ns": "id", "lu": "last_updated"},
				expect: checks{"id": "{{ns}}", "object_type": tNamespace, "url": "{{base}}/api/ipam/namespaces/{{ns}}/",
					"name": "conf-ns-{{sfx}}", "description": "d", "location": ref(tLocation, "{{location:a11}}"),
					"tags": lenM(1), "tags.0": ref(tTag, "{{tag:blue}}"), "custom_fields": fields{},
					"tenant": perLine{nil, absent}}},
			{what: "read", method: get, path: "/api/ipam/namespaces/{{ns}}/", status: 200,
				expect: checks{"name": "conf-ns-{{sfx}}", "location": ref(tLocation, "{{location:a11}}"), "last_updated": "{{lu}}"}},
			{what: "update", method: patch, path: "/api/ipam/namespaces/{{ns}}/", body: fields{"description": "e", "location": nil}, status: 200,
				save:   map[string]string{"lu2": "last_updated"},
				expect: checks{"description": "e", "location": nil, "last_updated": notM{"{{lu}}"}, "name": "conf-ns-{{sfx}}"}},
			// The check of a followed view reads what changed at or after
			// the newest stamp it holds.
			{what: "stamped at or after its change", method: get, path: "/api/ipam/namespaces/?name=conf-ns-{{sfx}}&last_updated__gte={{lu2}}", status: 200,
				expect: checks{"count": 1}},
			{what: "stamped later", method: get, path: "/api/ipam/namespaces/?name=conf-ns-{{sfx}}&last_updated__gte=2100-01-01T00:00:00.5Z", status: 200,
				expect: checks{"count": 0}},
			{what: "stamped at or before its first", method: get, path: "/api/ipam/namespaces/?name=conf-ns-{{sfx}}&last_updated__lte={{lu}}", status: 200,
				expect: checks{"count": 0}},
			{what: "find by name", method: get, path: "/api/ipam/namespaces/?name=conf-ns-{{sfx}}", status: 200,
				expect: checks{"count": 1, "next": nil, "previous": nil, "results.0.id": "{{ns}}", "results.0.description": "e"}},
			{what: "delete", method: del, path: "/api/ipam/namespaces/{{ns}}/", status: 204},
			{what: "gone", method: get, path: "/api/ipam/namespaces/{{ns}}/", status: 404,
				expect: checks{"": bodyM(`{"detail": "No Namespace matches the given query."}`)}},
		}},

		{name: "namespace name clash", steps: []step{
			{what: "create a", method: post, path: "/api/ipam/namespaces/", body: fields{"name": "conf-a-{{sfx}}"}, status: 201},
			{what: "create b", method: post, path: "/api/ipam/namespaces/", body: fields{"name": "conf-b-{{sfx}}"}, status: 201, save: map[string]string{"b": "id"}},
			{what: "create a again", method: post, path: "/api/ipam/namespaces/", body: fields{"name": "conf-a-{{sfx}}"}, status: 400,
				expect: checks{"": bodyM(`{"name": ["namespace with this name already exists."]}`)}},
			{what: "rename b to a", method: patch, path: "/api/ipam/namespaces/{{b}}/", body: fields{"name": "conf-a-{{sfx}}"}, status: 400,
				expect: checks{"": bodyM(`{"name": ["namespace with this name already exists."]}`)}},
			// A create sent again after its answer was lost: the name is
			// named, not the id, which only a clash of the id alone names.
			{what: "create b again, with its id", method: post, path: "/api/ipam/namespaces/", body: fields{"id": "{{b}}", "name": "conf-b-{{sfx}}"}, status: 400,
				expect: checks{"": bodyM(`{"name": ["namespace with this name already exists."]}`)}},
			{what: "create with b's id and a new name", method: post, path: "/api/ipam/namespaces/", body: fields{"id": "{{b}}", "name": "conf-c-{{sfx}}"}, status: 400,
				expect: checks{"": bodyM(`{"id": ["Namespace with this Id already exists."]}`)}},
		}},

		{name: "vlan group create read update delete with range", steps: []step{
			{what: "create with an unsorted range", method: post, path: "/api/ipam/vlan-groups/",
				body:   fields{"name": "conf-g-{{sfx}}", "range": "300-310, 100-199,150-250", "location": "{{location:a11}}", "description": "d", "tags": items{fields{"name": "blue"}}},
				status: 201, save: map[string]string{"g": "id"},
				expect: checks{"object_type": tGroup, "name": "conf-g-{{sfx}}", "location": ref(tLocation, "{{location:a11}}"),
					"description": "d", "tags.0": ref(tTag, "{{tag:blue}}"),
					// The answer to a write echoes the range as sent; it is
					// stored normalized.
					"range": "300-310, 100-199,150-250"}},
			{what: "read the normalized range", method: get, path: "/api/ipam/vlan-groups/{{g}}/", status: 200,
				expect: checks{"range": "100-250,300-310"}},
			{what: "create without range", method: post, path: "/api/ipam/vlan-groups/", body: fields{"name": "conf-h-{{sfx}}"}, status: 201,
				save: map[string]string{"h": "id"}, expect: checks{"range": "1-4094", "location": nil, "tags": items{}}},
			{what: "update the range", method: patch, path: "/api/ipam/vlan-groups/{{h}}/", body: fields{"range": "100-199"}, status: 200,
				expect: checks{"range": "100-199"}},
			{what: "range beyond 4094", method: patch, path: "/api/ipam/vlan-groups/{{h}}/", body: fields{"range": "0-5000"}, status: 400,
				expect: checks{"": bodyM(`{"range": ["Invalid value. Specify a range value between 1-4094"]}`)}},
			// Nautobot's range parser lets the ValueError through.
			{what: "range that is not one", method: patch, path: "/api/ipam/vlan-groups/{{h}}/", body: fields{"range": "abc"}, status: 500,
				expect: checks{"exception": "ValueError", "error": "invalid literal for int() with base 10: 'abc'"}},
			// A reversed range expands to no VIDs, which is a blank range.
			{what: "reversed range", method: post, path: "/api/ipam/vlan-groups/", body: fields{"name": "conf-i-{{sfx}}", "range": "9-5"}, status: 400,
				expect: checks{"": bodyM(`{"range": ["This field cannot be blank."]}`)}},
			{what: "name taken", method: post, path: "/api/ipam/vlan-groups/", body: fields{"name": "conf-g-{{sfx}}"}, status: 400,
				expect: checks{"": bodyM(`{"name": ["VLAN group with this name already exists."]}`)}},
			{what: "find by name", method: get, path: "/api/ipam/vlan-groups/?name=conf-g-{{sfx}}", status: 200,
				expect: checks{"count": 1, "results.0.range": "100-250,300-310"}},
			{what: "delete", method: del, path: "/api/ipam/vlan-groups/{{g}}/", status: 204},
		}},

		{name: "vlan create read update delete", steps: []step{
			{what: "group", method: post, path: "/api/ipam/vlan-groups/", body: fields{"name": "conf-g-{{sfx}}", "range": "100-199"}, status: 201, save: map[string]string{"g": "id"}},
			{what: "create", method: post, path: "/api/ipam/vlans/",
				body: fields{"vid": 100, "name": "v100", "status": "{{status:Active}}", "vlan_group": "{{g}}", "role": fields{"name": "tenant-net"},
					"tenant": fields{"name": "acme"}, "tags": items{fields{"name": "blue"}}, "description": "d"},
				status: 201, save: map[string]string{"v": "id"},
				expect: checks{"object_type": tVLAN, "vid": 100, "name": "v100", "description": "d", "vlan_group": ref(tGroup, "{{g}}"),
					"status": ref(tStatus, "{{status:Active}}"), "role": ref(tRole, "{{role:tenant-net}}"), "tenant": ref(tTenant, "{{tenant:acme}}"),
					"tags.0": ref(tTag, "{{tag:blue}}"), "locations": perLine{absent, items{}}}},
			{what: "read with many-to-many fields", method: get, path: "/api/ipam/vlans/{{v}}/?exclude_m2m=false", status: 200,
				expect: checks{"locations": items{}, "vid": 100}},
			{what: "update vid and name", method: patch, path: "/api/ipam/vlans/{{v}}/", body: fields{"vid": 101, "name": "v101", "role": nil}, status: 200,
				expect: checks{"vid": 101, "name": "v101", "role": nil}},
			{what: "vid outside the group's range", method: post, path: "/api/ipam/vlans/",
				body: fields{"vid": 300, "name": "v300", "status": "Active", "vlan_group": "{{g}}"}, status: 400,
				expect: checks{"": bodyM(`{"vid": ["VLAN ID is not contained in VLAN Group range (100-199)"]}`)}},
			{what: "vid taken in the group", method: post, path: "/api/ipam/vlans/",
				body: fields{"vid": 101, "name": "other", "status": "Active", "vlan_group": "{{g}}"}, status: 400,
				expect: checks{"": bodyM(`{"non_field_errors": ["The fields vlan_group, vid must make a unique set."]}`)}},
			{what: "name taken in the group", method: post, path: "/api/ipam/vlans/",
				body: fields{"vid": 102, "name": "v101", "status": "Active", "vlan_group": "{{g}}"}, status: 400,
				expect: checks{"": bodyM(`{"non_field_errors": ["The fields vlan_group, name must make a unique set."]}`)}},
			{what: "vid beyond 4094", method: post, path: "/api/ipam/vlans/",
				body: fields{"vid": 4095, "name": "big", "status": "Active", "vlan_group": "{{g}}"}, status: 400,
				expect: checks{"": bodyM(`{"vid": ["Ensure this value is less than or equal to 4094."]}`)}},
			{what: "group by natural key", method: post, path: "/api/ipam/vlans/",
				body: fields{"vid": 102, "name": "v102", "status": fields{"name": "Active"}, "vlan_group": fields{"name": "conf-g-{{sfx}}"}}, status: 201,
				expect: checks{"vlan_group": ref(tGroup, "{{g}}")}},
			{what: "filter by group id", method: get, path: "/api/ipam/vlans/?vlan_group={{g}}", status: 200,
				expect: checks{"count": 2, "results.0.vid": 101, "results.1.vid": 102}},
			{what: "filter by group name", method: get, path: "/api/ipam/vlans/?vlan_group=conf-g-{{sfx}}&vid=102", status: 200,
				expect: checks{"count": 1}},
			{what: "delete", method: del, path: "/api/ipam/vlans/{{v}}/", status: 204},
		}},

		{name: "clash between two items of one bulk create", steps: []step{
			{what: "group", method: post, path: "/api/ipam/vlan-groups/", body: fields{"name": "conf-g-{{sfx}}"}, status: 201, save: map[string]string{"g": "id"}},
			{what: "two vlans with one vid", method: post, path: "/api/ipam/vlans/",
				body:   items{fields{"vid": 10, "name": "a", "status": "Active", "vlan_group": "{{g}}"}, fields{"vid": 10, "name": "b", "status": "Active", "vlan_group": "{{g}}"}},
				status: 500, expect: checks{"exception": "IntegrityError", "error": hasM("duplicate key value violates unique constraint")}},
			{what: "two vlans with one name", method: post, path: "/api/ipam/vlans/",
				body:   items{fields{"vid": 10, "name": "a", "status": "Active", "vlan_group": "{{g}}"}, fields{"vid": 11, "name": "a", "status": "Active", "vlan_group": "{{g}}"}},
				status: 500, expect: checks{"exception": "IntegrityError"}},
			{what: "nothing written", method: get, path: "/api/ipam/vlans/?vlan_group={{g}}", status: 200, expect: checks{"count": 0}},
			{what: "two namespaces with one name", method: post, path: "/api/ipam/namespaces/",
				body: items{fields{"name": "conf-a-{{sfx}}"}, fields{"name": "conf-a-{{sfx}}"}}, status: 500, expect: checks{"exception": "IntegrityError"}},
			{what: "no namespace written", method: get, path: "/api/ipam/namespaces/?name=conf-a-{{sfx}}", status: 200, expect: checks{"count": 0}},
			{what: "namespace", method: post, path: "/api/ipam/namespaces/", body: fields{"name": "conf-ns-{{sfx}}"}, status: 201, save: map[string]string{"ns": "id"}},
			{what: "two prefixes with one network", method: post, path: "/api/ipam/prefixes/",
				body:   items{fields{"prefix": "10.20.0.0/16", "status": "Active", "namespace": "{{ns}}"}, fields{"prefix": "10.20.0.0/16", "status": "Active", "namespace": "{{ns}}"}},
				status: 500, expect: checks{"exception": "IntegrityError"}},
			{what: "no prefix written", method: get, path: "/api/ipam/prefixes/?namespace={{ns}}", status: 200, expect: checks{"count": 0}},
			{what: "a prefix", method: post, path: "/api/ipam/prefixes/", body: fields{"prefix": "10.20.0.0/16", "status": "Active", "namespace": "{{ns}}"}, status: 201},
			// 3.x checks the host again when saving, 2.4 leaves it to the database.
			{what: "two ips with one host", method: post, path: "/api/ipam/ip-addresses/",
				body:   items{fields{"address": "10.20.0.1/16", "status": "Active", "namespace": "{{ns}}"}, fields{"address": "10.20.0.1/24", "status": "Active", "namespace": "{{ns}}"}},
				status: 500, expect: checks{"exception": perLine{"ValidationError", "IntegrityError"},
					"error": perLine{"{'__all__': ['IP address 10.20.0.1/24 already exists in 10.20.0.0/16.']}", hasM("duplicate key value violates unique constraint")}}},
			{what: "no ip written", method: get, path: "/api/ipam/ip-addresses/?namespace={{ns}}", status: 200, expect: checks{"count": 0}},
			{what: "a prefix and its child in one request", method: post, path: "/api/ipam/prefixes/",
				body:   items{fields{"prefix": "10.21.0.0/16", "status": "Active", "namespace": "{{ns}}"}, fields{"prefix": "10.21.1.0/24", "status": "Active", "namespace": "{{ns}}"}},
				status: 201, save: map[string]string{"p16": "0.id", "p24": "1.id"}},
			{what: "the child's parent", method: get, path: "/api/ipam/prefixes/{{p24}}/", status: 200, expect: checks{"parent": ref(tPrefix, "{{p16}}")}},
		}},

		{name: "bulk create with an item clashing with an existing object", steps: []step{
			{what: "existing", method: post, path: "/api/ipam/namespaces/", body: fields{"name": "conf-a-{{sfx}}"}, status: 201},
			{what: "bulk with a clash in the middle", method: post, path: "/api/ipam/namespaces/",
				body: items{fields{"name": "conf-b-{{sfx}}"}, fields{"name": "conf-a-{{sfx}}"}, fields{"name": "conf-c-{{sfx}}"}}, status: 400,
				expect: checks{"": bodyM(`[{}, {"name": ["namespace with this name already exists."]}, {}]`)}},
			{what: "nothing written", method: get, path: "/api/ipam/namespaces/?name=conf-b-{{sfx}}&name=conf-c-{{sfx}}", status: 200, expect: checks{"count": 0}},
			{what: "bulk create", method: post, path: "/api/ipam/namespaces/",
				body: items{fields{"name": "conf-b-{{sfx}}"}, fields{"name": "conf-c-{{sfx}}"}}, status: 201,
				expect: checks{"": lenM(2), "0.name": "conf-b-{{sfx}}", "1.name": "conf-c-{{sfx}}"}},
		}},

		{name: "prefix create read update delete", steps: []step{
			{what: "namespace", method: post, path: "/api/ipam/namespaces/", body: fields{"name": "conf-ns-{{sfx}}"}, status: 201, save: map[string]string{"ns": "id"}},
			{what: "group", method: post, path: "/api/ipam/vlan-groups/", body: fields{"name": "conf-g-{{sfx}}"}, status: 201, save: map[string]string{"g": "id"}},
			{what: "vlan", method: post, path: "/api/ipam/vlans/", body: fields{"vid": 7, "name": "v7", "status": "Active", "vlan_group": "{{g}}"}, status: 201, save: map[string]string{"v": "id"}},
			{what: "create a container with a location", method: post, path: "/api/ipam/prefixes/",
				body: fields{"prefix": "10.1.0.0/16", "status": "{{status:Active}}", "namespace": "{{ns}}", "type": "container", "location": "{{location:a11}}",
					"role": fields{"name": "tenant-net"}, "tenant": fields{"name": "acme"}, "description": "d", "tags": items{fields{"name": "blue"}}},
				status: 201, save: map[string]string{"p16": "id"},
				expect: checks{"object_type": tPrefix, "prefix": "10.1.0.0/16", "type": fields{"value": "container", "label": "Container"},
					"status": ref(tStatus, "{{status:Active}}"), "namespace": ref(tNamespace, "{{ns}}"), "parent": nil,
					"role": ref(tRole, "{{role:tenant-net}}"), "tenant": ref(tTenant, "{{tenant:acme}}"), "vlan": nil, "description": "d",
					"tags.0": ref(tTag, "{{tag:blue}}"), "location": absent,
					"locations": perLine{absent, items{ref(tLocation, "{{location:a11}}")}}}},
			{what: "read", method: get, path: "/api/ipam/prefixes/{{p16}}/", status: 200,
				expect: checks{"location": absent, "locations": perLine{absent, items{ref(tLocation, "{{location:a11}}")}}}},
			{what: "read with many-to-many fields", method: get, path: "/api/ipam/prefixes/{{p16}}/?exclude_m2m=false", status: 200,
				expect: checks{"locations": items{ref(tLocation, "{{location:a11}}")}}},
			{what: "a network inside, its vlan by natural key", method: post, path: "/api/ipam/prefixes/",
				body: fields{"prefix": "10.1.2.0/24", "status": "Active", "namespace": fields{"name": "conf-ns-{{sfx}}"},
					"vlan": fields{"vlan_group": fields{"name": "conf-g-{{sfx}}"}, "vid": 7}},
				status: 201, save: map[string]string{"p24": "id"},
				expect: checks{"type": fields{"value": "network", "label": "Network"}, "parent": ref(tPrefix, "{{p16}}"), "vlan": ref(tVLAN, "{{v}}"),
					"locations": perLine{absent, items{}}}},
			{what: "update type", method: patch, path: "/api/ipam/prefixes/{{p24}}/", body: fields{"type": "pool", "vlan": nil}, status: 200,
				expect: checks{"type": fields{"value": "pool", "label": "Pool"}, "vlan": nil, "parent": ref(tPrefix, "{{p16}}")}},
			{what: "prefix taken in the namespace", method: post, path: "/api/ipam/prefixes/",
				body: fields{"prefix": "10.1.0.0/16", "status": "Active", "namespace": "{{ns}}"}, status: 400,
				expect: checks{"": bodyM(`{"__all__": ["Prefix with this Namespace, Network and Prefix length already exists."]}`)}},
			{what: "bad type", method: post, path: "/api/ipam/prefixes/",
				body: fields{"prefix": "10.2.0.0/16", "status": "Active", "namespace": "{{ns}}", "type": "bogus"}, status: 400,
				expect: checks{"": bodyM(`{"type": ["bogus is not a valid choice."]}`)}},
			{what: "filter by namespace", method: get, path: "/api/ipam/prefixes/?namespace={{ns}}", status: 200,
				expect: checks{"count": 2, "results.0.id": "{{p16}}", "results.1.id": "{{p24}}"}},
			{what: "filter by namespace and locations", method: get, path: "/api/ipam/prefixes/?namespace={{ns}}&locations={{location:a11}}", status: 200,
				expect: checks{"count": 1, "results.0.id": "{{p16}}"}},
			{what: "filter by namespace and location", method: get, path: "/api/ipam/prefixes/?namespace={{ns}}&location=a11", status: 200,
				expect: checks{"count": 1, "results.0.id": "{{p16}}"}},
			{what: "filter by parent id", method: get, path: "/api/ipam/prefixes/?parent={{p16}}", status: 200, expect: checks{"count": 1, "results.0.id": "{{p24}}"}},
			{what: "filter by parent network", method: get, path: "/api/ipam/prefixes/?namespace={{ns}}&parent=10.1.0.0/16", status: 200, expect: checks{"count": 1}},
			{what: "many-to-many fields left out on request", method: get, path: "/api/ipam/prefixes/?namespace={{ns}}&exclude_m2m=true", status: 200,
				expect: checks{"count": 2, "results.0.locations": absent}},
			{what: "delete the container", method: del, path: "/api/ipam/prefixes/{{p16}}/", status: 204},
			{what: "its child lost its parent", method: get, path: "/api/ipam/prefixes/{{p24}}/", status: 200, expect: checks{"parent": nil}},
		}},

		{name: "prefix location assignments", steps: []step{
			{what: "namespace", method: post, path: "/api/ipam/namespaces/", body: fields{"name": "conf-ns-{{sfx}}"}, status: 201, save: map[string]string{"ns": "id"}},
			{what: "prefix at a11", method: post, path: "/api/ipam/prefixes/",
				body: fields{"prefix": "10.3.0.0/16", "status": "Active", "namespace": "{{ns}}", "location": fields{"name": "a11"}}, status: 201, save: map[string]string{"p": "id"}},
			{what: "assign a12", method: post, path: "/api/ipam/prefix-location-assignments/",
				body: fields{"prefix": "{{p}}", "location": fields{"name": "a12"}}, status: 201, save: map[string]string{"a": "id"},
				expect: checks{"object_type": tAssign, "prefix": ref(tPrefix, "{{p}}"), "location": ref(tLocation, "{{location:a12}}")}},
			{what: "assign a12 again", method: post, path: "/api/ipam/prefix-location-assignments/",
				body: fields{"prefix": "{{p}}", "location": fields{"name": "a12"}}, status: 400,
				expect: checks{"": bodyM(`{"non_field_errors": ["The fields prefix, location must make a unique set."]}`)}},
			{what: "assignments of the prefix", method: get, path: "/api/ipam/prefix-location-assignments/?prefix={{p}}", status: 200,
				expect: checks{"count": 2}},
			{what: "prefix with both locations", method: get, path: "/api/ipam/prefixes/{{p}}/?exclude_m2m=false", status: 200,
				expect: checks{"locations": lenM(2)}},
			// Writing one location is ambiguous once a prefix has several.
			{what: "write location with two", method: patch, path: "/api/ipam/prefixes/{{p}}/", body: fields{"location": natural("a11")}, status: 412,
				expect: checks{"": bodyM(`{"detail": "This object has multiple Locations and so cannot be represented in the 2.0 or 2.1 REST API. Please correct the data or use a later API version."}`)}},
			{what: "unassign a12", method: del, path: "/api/ipam/prefix-location-assignments/{{a}}/", status: 204},
			{what: "one left", method: get, path: "/api/ipam/prefix-location-assignments/?prefix={{p}}", status: 200,
				expect: checks{"count": 1, "results.0.location": ref(tLocation, "{{location:a11}}")}},
			{what: "write location with one replaces it", method: patch, path: "/api/ipam/prefixes/{{p}}/", body: fields{"location": natural("a12")}, status: 200},
			{what: "replaced", method: get, path: "/api/ipam/prefix-location-assignments/?prefix={{p}}", status: 200,
				expect: checks{"count": 1, "results.0.location": ref(tLocation, "{{location:a12}}")}},
			{what: "filter by location", method: get, path: "/api/ipam/prefix-location-assignments/?prefix={{p}}&location=a12", status: 200, expect: checks{"count": 1}},
		}},

		{name: "ip address with write-only namespace and computed parent", steps: []step{
			{what: "namespace", method: post, path: "/api/ipam/namespaces/", body: fields{"name": "conf-ns-{{sfx}}"}, status: 201, save: map[string]string{"ns": "id"}},
			{what: "container", method: post, path: "/api/ipam/prefixes/",
				body: fields{"prefix": "10.4.0.0/16", "status": "Active", "namespace": "{{ns}}", "type": "container"}, status: 201, save: map[string]string{"p16": "id"}},
			{what: "create", method: post, path: "/api/ipam/ip-addresses/",
				body: fields{"address": "10.4.3.4/24", "status": "Active", "namespace": "{{ns}}", "dns_name": "host.example.com",
					"role": fields{"name": "loopback"}, "tenant": fields{"name": "acme"}, "description": "d", "tags": items{fields{"name": "blue"}}},
				status: 201, save: map[string]string{"ip": "id", "lu": "last_updated"},
				expect: checks{"object_type": tIP, "address": "10.4.3.4/24", "namespace": absent, "parent": ref(tPrefix, "{{p16}}"),
					"status": ref(tStatus, "{{status:Active}}"), "role": ref(tRole, "{{role:loopback}}"), "tenant": ref(tTenant, "{{tenant:acme}}"),
					"dns_name": "host.example.com", "description": "d", "tags.0": ref(tTag, "{{tag:blue}}")}},
			{what: "a closer prefix", method: post, path: "/api/ipam/prefixes/",
				body: fields{"prefix": "10.4.3.0/24", "status": "Active", "namespace": "{{ns}}"}, status: 201, save: map[string]string{"p24": "id"}},
			// Nautobot reparents with a queryset update, which leaves
			// last_updated alone.
			{what: "reparented", method: get, path: "/api/ipam/ip-addresses/{{ip}}/", status: 200,
				expect: checks{"parent": ref(tPrefix, "{{p24}}"), "namespace": absent, "last_updated": "{{lu}}"}},
			{what: "change the mask", method: patch, path: "/api/ipam/ip-addresses/{{ip}}/", body: fields{"address": "10.4.3.4/26", "description": "e"}, status: 200,
				expect: checks{"address": "10.4.3.4/26", "description": "e", "parent": ref(tPrefix, "{{p24}}")}},
			{what: "host taken in the namespace", method: post, path: "/api/ipam/ip-addresses/",
				body: fields{"address": "10.4.3.4/32", "status": "Active", "namespace": "{{ns}}"}, status: 400,
				expect: checks{"__all__": perLine{
					items{"IP address 10.4.3.4/32 already exists in 10.4.3.0/24.", "IP address with this Parent and Host already exists."},
					items{"IP address with this Parent and Host already exists."}}}},
			{what: "no prefix holds it", method: post, path: "/api/ipam/ip-addresses/",
				body: fields{"address": "192.0.2.1/24", "status": "Active", "namespace": "{{ns}}"}, status: 400,
				expect: checks{"": bodyM(`{"namespace": ["No suitable parent Prefix for 192.0.2.1 exists in Namespace conf-ns-{{sfx}}"]}`)}},
			{what: "filter by namespace", method: get, path: "/api/ipam/ip-addresses/?namespace={{ns}}", status: 200,
				expect: checks{"count": 1, "results.0.id": "{{ip}}", "results.0.namespace": absent}},
			{what: "filter by parent", method: get, path: "/api/ipam/ip-addresses/?parent={{p24}}", status: 200, expect: checks{"count": 1}},
			{what: "filter by address", method: get, path: "/api/ipam/ip-addresses/?namespace={{ns}}&address=10.4.3.4", status: 200, expect: checks{"count": 1}},
			{what: "delete", method: del, path: "/api/ipam/ip-addresses/{{ip}}/", status: 204},
		}},

		{name: "autonomous system create read update delete", steps: []step{
			{what: "create", method: post, path: "/api/plugins/bgp/autonomous-systems/",
				body: fields{"asn": num{"asn", 0}, "status": "{{status:Active}}", "description": "d"}, status: 201, save: map[string]string{"a": "id"},
				expect: checks{"object_type": tASN, "asn": num{"asn", 0}, "status": ref(tStatus, "{{status:Active}}"), "description": "d", "tags": items{}}},
			{what: "read", method: get, path: "/api/plugins/bgp/autonomous-systems/{{a}}/", status: 200, expect: checks{"asn": num{"asn", 0}}},
			{what: "update to a status of ASNs only", method: patch, path: "/api/plugins/bgp/autonomous-systems/{{a}}/",
				body: fields{"status": fields{"name": "Available"}, "description": "e"}, status: 200,
				expect: checks{"status": ref(tStatus, "{{status:Available}}"), "description": "e"}},
			{what: "asn taken", method: post, path: "/api/plugins/bgp/autonomous-systems/", body: fields{"asn": num{"asn", 0}, "status": "Active"}, status: 400,
				expect: checks{"": bodyM(`{"asn": ["Autonomous system with this ASN already exists."]}`)}},
			{what: "filter by asn", method: get, path: "/api/plugins/bgp/autonomous-systems/?asn={{asn}}", status: 200, expect: checks{"count": 1, "results.0.id": "{{a}}"}},
			{what: "delete", method: del, path: "/api/plugins/bgp/autonomous-systems/{{a}}/", status: 204},
		}},

		{name: "statuses allowed per content type", steps: []step{
			{what: "namespace", method: post, path: "/api/ipam/namespaces/", body: fields{"name": "conf-ns-{{sfx}}"}, status: 201, save: map[string]string{"ns": "id"}},
			{what: "prefix Planned", method: post, path: "/api/ipam/prefixes/", body: fields{"prefix": "10.5.0.0/16", "status": fields{"name": "Planned"}, "namespace": "{{ns}}"}, status: 400,
				expect: checks{"": bodyM(`{"status": ["Related object not found using the provided attributes: {'name': 'Planned'}"]}`)}},
			{what: "prefix Planned by id", method: post, path: "/api/ipam/prefixes/", body: fields{"prefix": "10.5.0.0/16", "status": "{{status:Planned}}", "namespace": "{{ns}}"}, status: 400,
				expect: checks{"": bodyM(`{"status": ["Related object not found using the provided attributes: {'pk': UUID('{{status:Planned}}')}"]}`)}},
			{what: "prefix Reserved", method: post, path: "/api/ipam/prefixes/", body: fields{"prefix": "10.5.0.0/16", "status": fields{"name": "Reserved"}, "namespace": "{{ns}}"}, status: 201},
			{what: "ip Deprecated", method: post, path: "/api/ipam/ip-addresses/", body: fields{"address": "10.5.0.1/16", "status": fields{"name": "Deprecated"}, "namespace": "{{ns}}"}, status: 201},
			{what: "vlan Available", method: post, path: "/api/ipam/vlans/", body: fields{"vid": 5, "name": "conf-{{sfx}}", "status": fields{"name": "Available"}}, status: 400,
				expect: checks{"": bodyM(`{"status": ["Related object not found using the provided attributes: {'name': 'Available'}"]}`)}},
			{what: "asn Reserved", method: post, path: "/api/plugins/bgp/autonomous-systems/", body: fields{"asn": num{"asn", 0}, "status": fields{"name": "Reserved"}}, status: 400,
				expect: checks{"": bodyM(`{"status": ["Related object not found using the provided attributes: {'name': 'Reserved'}"]}`)}},
			{what: "asn Planned", method: post, path: "/api/plugins/bgp/autonomous-systems/", body: fields{"asn": num{"asn", 0}, "status": fields{"name": "Planned"}}, status: 201},
		}},

		{name: "location type that does not allow a content type", steps: []step{
			{what: "a type for devices only", method: post, path: "/api/dcim/location-types/",
				body: fields{"name": "conf-lt-{{sfx}}", "content_types": items{"dcim.device"}}, status: 201, save: map[string]string{"lt": "id"}},
			{what: "a location of it", method: post, path: "/api/dcim/locations/",
				body: fields{"name": "conf-loc-{{sfx}}", "location_type": "{{lt}}", "status": "Active"}, status: 201, save: map[string]string{"loc": "id"}},
			// Namespaces do not check their location's type.
			{what: "namespace there", method: post, path: "/api/ipam/namespaces/", body: fields{"name": "conf-ns-{{sfx}}", "location": "{{loc}}"}, status: 201,
				save: map[string]string{"ns": "id"}, expect: checks{"location": ref(tLocation, "{{loc}}")}},
			{what: "vlan group there", method: post, path: "/api/ipam/vlan-groups/", body: fields{"name": "conf-g-{{sfx}}", "location": "{{loc}}"}, status: 400,
				expect: checks{"": bodyM(`{"location": ["VLAN groups may not associate to locations of type \"conf-lt-{{sfx}}\"."]}`)}},
			{what: "prefix there", method: post, path: "/api/ipam/prefixes/",
				body: fields{"prefix": "10.6.0.0/16", "status": "Active", "namespace": "{{ns}}", "location": "{{loc}}"}, status: 500,
				expect: checks{"exception": "ValidationError", "error": `{'locations': ["Prefixes may not associate to Locations of types ['conf-lt-{{sfx}}']."]}`}},
			{what: "no prefix written", method: get, path: "/api/ipam/prefixes/?namespace={{ns}}", status: 200, expect: checks{"count": 0}},
			{what: "prefix", method: post, path: "/api/ipam/prefixes/", body: fields{"prefix": "10.6.0.0/16", "status": "Active", "namespace": "{{ns}}"},
				status: 201, save: map[string]string{"p": "id"}},
			{what: "moved there", method: patch, path: "/api/ipam/prefixes/{{p}}/", body: fields{"location": "{{loc}}"}, status: 400,
				expect: checks{"": bodyM(`{"locations": ["Prefixes may not associate to Locations of types ['conf-lt-{{sfx}}']."]}`)}},
			// Assignments do not check the location's type.
			{what: "assigned there", method: post, path: "/api/ipam/prefix-location-assignments/", body: fields{"prefix": "{{p}}", "location": "{{loc}}"}, status: 201,
				expect: checks{"location": ref(tLocation, "{{loc}}")}},
		}},

		{name: "missing and wrong references", steps: []step{
			{what: "namespace", method: post, path: "/api/ipam/namespaces/", body: fields{"name": "conf-ns-{{sfx}}"}, status: 201, save: map[string]string{"ns": "id"}},
			{what: "unknown namespace id", method: post, path: "/api/ipam/prefixes/",
				body: fields{"prefix": "10.7.0.0/16", "status": "Active", "namespace": "{{uuid:nope}}"}, status: 400,
				expect: checks{"": bodyM(`{"namespace": ["Related object not found using the provided attributes: {'pk': UUID('{{uuid:nope}}')}"]}`)}},
			{what: "unknown location name", method: post, path: "/api/ipam/prefixes/",
				body: fields{"prefix": "10.7.0.0/16", "status": "Active", "namespace": "{{ns}}", "location": fields{"name": "nowhere-{{sfx}}"}}, status: 400,
				expect: checks{"": bodyM(`{"location": ["Related object not found using the provided attributes: {'name': 'nowhere-{{sfx}}'}"]}`)}},
			{what: "unknown vlan group name", method: post, path: "/api/ipam/vlans/",
				body: fields{"vid": 5, "name": "v5", "status": "Active", "vlan_group": fields{"name": "nope-{{sfx}}"}}, status: 400,
				expect: checks{"": bodyM(`{"vlan_group": ["Related object not found using the provided attributes: {'name': 'nope-{{sfx}}'}"]}`)}},
			{what: "unknown tag", method: post, path: "/api/ipam/prefixes/",
				body: fields{"prefix": "10.7.0.0/16", "status": "Active", "namespace": "{{ns}}", "tags": items{fields{"name": "nope-{{sfx}}"}}}, status: 400,
				expect: checks{"": bodyM(`{"tags": ["Related object not found using the provided attributes: {'name': 'nope-{{sfx}}'}"]}`)}},
			{what: "composite keys", method: post, path: "/api/ipam/prefixes/", body: fields{"prefix": "10.7.0.0/16", "status": "Bogus", "namespace": "nope-{{sfx}}"}, status: 400,
				expect: checks{"": bodyM(`{"status": ["Related object not found using the provided attributes: {'name': 'Bogus'}"],
					"namespace": ["Related object not found using the provided attributes: {'name': 'nope-{{sfx}}'}"]}`)}},
			{what: "composite key that exists", method: post, path: "/api/ipam/prefixes/", body: fields{"prefix": "10.7.0.0/16", "status": "Active", "namespace": "conf-ns-{{sfx}}"}, status: 201,
				expect: checks{"namespace": ref(tNamespace, "{{ns}}"), "status": ref(tStatus, "{{status:Active}}")}},
			{what: "missing status", method: post, path: "/api/ipam/prefixes/", body: fields{"prefix": "10.7.0.0/16", "namespace": "{{ns}}"}, status: 400,
				expect: checks{"": bodyM(`{"status": ["This field is required."]}`)}},
			{what: "missing prefix", method: post, path: "/api/ipam/prefixes/", body: fields{"status": "Active", "namespace": "{{ns}}"}, status: 400,
				expect: checks{"": bodyM(`{"prefix": ["This field is required."]}`)}},
			{what: "ip without namespace or parent", method: post, path: "/api/ipam/ip-addresses/", body: fields{"address": "10.7.0.1/16", "status": "Active"}, status: 400,
				expect: checks{"": bodyM(`{"__all__": ["One of parent or namespace must be provided"]}`)}},
			{what: "unknown parent", method: post, path: "/api/ipam/ip-addresses/", body: fields{"address": "10.7.0.1/16", "status": "Active", "parent": "{{uuid:nope}}"}, status: 400,
				expect: checks{"": bodyM(`{"parent": ["Related object not found using the provided attributes: {'pk': UUID('{{uuid:nope}}')}"]}`)}},
		}},

		{name: "tag create read update delete with content types", steps: []step{
			{what: "create", method: post, path: "/api/extras/tags/",
				body: fields{"name": "conf-tag-{{sfx}}", "color": "00bcd4", "description": "d", "content_types": items{"ipam.prefix", tASN}}, status: 201,
				save: map[string]string{"tag": "id"}, expect: checks{"object_type": tTag, "name": "conf-tag-{{sfx}}", "color": "00bcd4", "content_types": items{"ipam.prefix", tASN}}},
			{what: "find by name", method: get, path: "/api/extras/tags/?name=conf-tag-{{sfx}}", status: 200, expect: checks{"count": 1, "results.0.id": "{{tag}}"}},
			{what: "name taken", method: post, path: "/api/extras/tags/", body: fields{"name": "conf-tag-{{sfx}}", "content_types": items{"ipam.prefix"}}, status: 400,
				expect: checks{"": bodyM(`{"name": ["tag with this name already exists."]}`)}},
			{what: "no content types", method: post, path: "/api/extras/tags/", body: fields{"name": "conf-tag2-{{sfx}}"}, status: 400,
				expect: checks{"": bodyM(`{"content_types": ["This field is required."]}`)}},
			{what: "tag an asn", method: post, path: "/api/plugins/bgp/autonomous-systems/",
				body: fields{"asn": num{"asn", 0}, "status": "Active", "tags": items{"{{tag}}"}}, status: 201, expect: checks{"tags": items{ref(tTag, "{{tag}}")}}},
			{what: "tag a namespace it does not allow", method: post, path: "/api/ipam/namespaces/",
				body: fields{"name": "conf-ns-{{sfx}}", "tags": items{fields{"name": "conf-tag-{{sfx}}"}}}, status: 400,
				expect: checks{"": bodyM(`{"tags": ["Related object not found using the provided attributes: {'name': 'conf-tag-{{sfx}}'}"]}`)}},
			// Content types come in the order Nautobot created them, not as sent.
			{what: "allow namespaces", method: patch, path: "/api/extras/tags/{{tag}}/", body: fields{"content_types": items{"ipam.prefix", tASN, "ipam.namespace"}}, status: 200,
				expect: checks{"content_types": items{"ipam.prefix", "ipam.namespace", tASN}}},
			{what: "tag the namespace", method: post, path: "/api/ipam/namespaces/",
				body: fields{"name": "conf-ns-{{sfx}}", "tags": items{fields{"name": "conf-tag-{{sfx}}"}}}, status: 201},
			{what: "filter by tag", method: get, path: "/api/ipam/namespaces/?tags=conf-tag-{{sfx}}", status: 200, expect: checks{"count": 1}},
		}},

		{name: "custom fields and their filters", steps: []step{
			{what: "exact text field", method: post, path: "/api/extras/custom-fields/",
				body:   fields{"key": "conf_{{sfx}}", "label": "Conf {{sfx}}", "type": "text", "filter_logic": "exact", "content_types": items{"ipam.prefix", "ipam.vlan"}, "description": "d"},
				status: 201, save: map[string]string{"cf": "id"},
				expect: checks{"key": "conf_{{sfx}}", "label": "Conf {{sfx}}", "type": fields{"value": "text", "label": "Text"},
					"filter_logic": fields{"value": "exact", "label": "Exact"}, "content_types": items{"ipam.prefix", "ipam.vlan"}, "required": false, "default": nil}},
			{what: "loose text field", method: post, path: "/api/extras/custom-fields/",
				body: fields{"key": "confl_{{sfx}}", "label": "Confl {{sfx}}", "type": "text", "content_types": items{"ipam.prefix"}}, status: 201,
				expect: checks{"filter_logic": fields{"value": "loose", "label": "Loose"}}},
			{what: "integer field", method: post, path: "/api/extras/custom-fields/",
				body: fields{"key": "confn_{{sfx}}", "label": "Confn {{sfx}}", "type": "integer", "filter_logic": "exact", "content_types": items{"ipam.prefix"}}, status: 201},
			{what: "no key filter", method: get, path: "/api/extras/custom-fields/?key=conf_{{sfx}}", status: 400,
				expect: checks{"": bodyM(`{"key": ["Unknown filter field"]}`)}},
			{what: "label filter", method: get, path: "/api/extras/custom-fields/?label=Conf%20{{sfx}}", status: 200,
				expect: checks{"count": 1, "results.0.key": "conf_{{sfx}}"}},
			{what: "namespace", method: post, path: "/api/ipam/namespaces/", body: fields{"name": "conf-ns-{{sfx}}"}, status: 201, save: map[string]string{"ns": "id"}},
			{what: "prefix with values", method: post, path: "/api/ipam/prefixes/",
				body: fields{"prefix": "10.8.1.0/24", "status": "Active", "namespace": "{{ns}}",
					"custom_fields": fields{"conf_{{sfx}}": "static:a", "confl_{{sfx}}": "Static:Alpha", "confn_{{sfx}}": 5}},
				status: 201, expect: checks{"custom_fields.conf_{{sfx}}": "static:a", "custom_fields.confl_{{sfx}}": "Static:Alpha", "custom_fields.confn_{{sfx}}": 5}},
			{what: "prefix with other values", method: post, path: "/api/ipam/prefixes/",
				body:   fields{"prefix": "10.8.2.0/24", "status": "Active", "namespace": "{{ns}}", "custom_fields": fields{"conf_{{sfx}}": "static:ab"}},
				status: 201, save: map[string]string{"p2": "id"}, expect: checks{"custom_fields.conf_{{sfx}}": "static:ab", "custom_fields.confl_{{sfx}}": nil, "custom_fields.confn_{{sfx}}": nil}},
			{what: "clear a value", method: patch, path: "/api/ipam/prefixes/{{p2}}/", body: fields{"custom_fields": fields{"confn_{{sfx}}": nil, "confl_{{sfx}}": "x"}}, status: 200,
				expect: checks{"custom_fields.conf_{{sfx}}": "static:ab", "custom_fields.confl_{{sfx}}": "x", "custom_fields.confn_{{sfx}}": nil}},
			{what: "exact filter", method: get, path: "/api/ipam/prefixes/?namespace={{ns}}&cf_conf_{{sfx}}=static:a", status: 200, expect: checks{"count": 1}},
			{what: "loose filter", method: get, path: "/api/ipam/prefixes/?namespace={{ns}}&cf_confl_{{sfx}}=alpha", status: 200, expect: checks{"count": 1}},
			{what: "integer filter", method: get, path: "/api/ipam/prefixes/?namespace={{ns}}&cf_confn_{{sfx}}=5", status: 200, expect: checks{"count": 1}},
			{what: "filter on a field the kind lacks", method: get, path: "/api/ipam/namespaces/?cf_confn_{{sfx}}=5", status: 400,
				expect: checks{"": bodyM(`{"cf_confn_{{sfx}}": ["Unknown filter field"]}`)}},
			{what: "not an integer", method: post, path: "/api/ipam/prefixes/",
				body: fields{"prefix": "10.8.3.0/24", "status": "Active", "namespace": "{{ns}}", "custom_fields": fields{"confn_{{sfx}}": "five"}}, status: 400,
				expect: checks{"": bodyM(`{"__all__": ["Invalid value for custom field 'confn_{{sfx}}': Value must be an integer."]}`)}},
			// Nautobot drops values of keys no custom field has, silently.
			{what: "a key no field has", method: post, path: "/api/ipam/prefixes/",
				body: fields{"prefix": "10.8.3.0/24", "status": "Active", "namespace": "{{ns}}", "custom_fields": fields{"nope_{{sfx}}": "x"}}, status: 201,
				expect: checks{"custom_fields": fields{"conf_{{sfx}}": nil, "confl_{{sfx}}": nil, "confn_{{sfx}}": nil}}},
			{what: "extend to namespaces", method: patch, path: "/api/extras/custom-fields/{{cf}}/",
				body: fields{"content_types": items{"ipam.prefix", "ipam.vlan", "ipam.namespace"}}, status: 200,
				expect: checks{"content_types": items{"ipam.prefix", "ipam.vlan", "ipam.namespace"}}},
			{what: "change the type", method: patch, path: "/api/extras/custom-fields/{{cf}}/", body: fields{"type": "integer"}, status: 400,
				expect: checks{"": bodyM(`{"type": ["Type cannot be changed once created"]}`)}},
			{what: "namespace carries the field", method: get, path: "/api/ipam/namespaces/{{ns}}/", status: 200,
				expect: checks{"custom_fields.conf_{{sfx}}": nil}},
		}},

		{name: "unknown filters and bad filter values", steps: []step{
			{what: "unknown", method: get, path: "/api/ipam/prefixes/?bogus=1", status: 400, expect: checks{"": bodyM(`{"bogus": ["Unknown filter field"]}`)}},
			{what: "unknown custom field", method: get, path: "/api/ipam/prefixes/?cf_nope_{{sfx}}=1", status: 400,
				expect: checks{"": bodyM(`{"cf_nope_{{sfx}}": ["Unknown filter field"]}`)}},
			{what: "unknown namespace", method: get, path: "/api/ipam/prefixes/?namespace=nope-{{sfx}}", status: 400,
				expect: checks{"": bodyM(`{"namespace": ["Select a valid choice. nope-{{sfx}} is not one of the available choices."]}`)}},
			{what: "not a number", method: get, path: "/api/ipam/vlans/?vid=x", status: 400, expect: checks{"": bodyM(`{"vid": ["Enter a whole number."]}`)}},
			{what: "not a uuid", method: get, path: "/api/ipam/prefixes/?id=nope", status: 400, expect: checks{"": bodyM(`{"id": ["Enter a valid UUID."]}`)}},
			{what: "namespace location by name", method: get, path: "/api/ipam/namespaces/?location=a11", status: 400,
				expect: checks{"": bodyM(`{"location": ["“a11” is not a valid UUID."]}`)}},
			{what: "namespace location by id", method: get, path: "/api/ipam/namespaces/?location={{location:a11}}", status: 200},
			{what: "ip parent by name", method: get, path: "/api/ipam/ip-addresses/?parent=nope", status: 400,
				expect: checks{"": bodyM(`{"parent": ["“nope” is not a valid UUID."]}`)}},
			{what: "prefix vlan by name", method: get, path: "/api/ipam/prefixes/?vlan_id=nope", status: 400,
				expect: checks{"": bodyM(`{"vlan_id": ["“nope” is not a valid UUID."]}`)}},
			{what: "what ipsync sends", method: get, path: "/api/ipam/prefixes/?exclude_m2m=false&depth=0&limit=1", status: 200},
			{what: "content types filter", method: get, path: "/api/extras/tags/?content_types=ipam.prefix&name=blue", status: 200, expect: checks{"count": 1}},
		}},

		{name: "stock statuses per content type", steps: []step{
			{what: "prefixes", method: get, path: "/api/extras/statuses/?content_types=ipam.prefix", status: 200,
				expect: checks{"count": 3, "results.0.name": "Active", "results.1.name": "Deprecated", "results.2.name": "Reserved"}},
			{what: "ip addresses", method: get, path: "/api/extras/statuses/?content_types=ipam.ipaddress", status: 200,
				expect: checks{"count": 3, "results.0.name": "Active", "results.1.name": "Deprecated", "results.2.name": "Reserved"}},
			{what: "vlans", method: get, path: "/api/extras/statuses/?content_types=ipam.vlan", status: 200,
				expect: checks{"count": 3, "results.0.name": "Active", "results.1.name": "Deprecated", "results.2.name": "Reserved"}},
			{what: "autonomous systems", method: get, path: "/api/extras/statuses/?content_types=" + tASN, status: 200,
				expect: checks{"count": 3, "results.0.name": "Active", "results.1.name": "Available", "results.2.name": "Planned"}},
			{what: "namespaces have none", method: get, path: "/api/extras/statuses/?content_types=ipam.namespace", status: 400,
				expect: checks{"": bodyM(`{"content_types": ["Select a valid choice. ipam.namespace is not one of the available choices."]}`)}},
			{what: "Active", method: get, path: "/api/extras/statuses/?name=Active", status: 200,
				expect: checks{"count": 1, "results.0.id": "{{status:Active}}", "results.0.name": "Active", "results.0.content_types": present}},
		}},

		{name: "one location name under two parents", steps: []step{
			{what: "under a11", method: post, path: "/api/dcim/locations/",
				body: fields{"name": "conf-dup-{{sfx}}", "location_type": natural("Site"), "status": "Active", "parent": natural("a11")}, status: 201, save: map[string]string{"l1": "id"},
				expect: checks{"parent": ref(tLocation, "{{location:a11}}")}},
			{what: "under a12", method: post, path: "/api/dcim/locations/",
				body: fields{"name": "conf-dup-{{sfx}}", "location_type": natural("Site"), "status": "Active", "parent": natural("a12")}, status: 201, save: map[string]string{"l2": "id"}},
			{what: "under a12 again", method: post, path: "/api/dcim/locations/",
				body: fields{"name": "conf-dup-{{sfx}}", "location_type": natural("Site"), "status": "Active", "parent": natural("a12")}, status: 400,
				expect: checks{"": bodyM(`{"non_field_errors": ["The fields parent, name must make a unique set."]}`)}},
			{what: "both by name", method: get, path: "/api/dcim/locations/?name=conf-dup-{{sfx}}", status: 200, expect: checks{"count": 2}},
			{what: "ambiguous name", method: post, path: "/api/ipam/namespaces/", body: fields{"name": "conf-ns-{{sfx}}", "location": natural("conf-dup-{{sfx}}")}, status: 400,
				expect: checks{"": bodyM(`{"location": ["Multiple objects match the provided attributes: {'name': 'conf-dup-{{sfx}}'}"]}`)}},
			{what: "composite key of a top-level location", method: post, path: "/api/ipam/namespaces/", body: fields{"name": "conf-ns-{{sfx}}", "location": "conf-dup-{{sfx}}"}, status: 400,
				expect: checks{"": bodyM(`{"location": ["Related object not found using the provided attributes: {'name': 'conf-dup-{{sfx}}', 'parent__name': None}"]}`)}},
			{what: "by id", method: post, path: "/api/ipam/namespaces/", body: fields{"name": "conf-ns-{{sfx}}", "location": "{{l2}}"}, status: 201,
				expect: checks{"location": ref(tLocation, "{{l2}}")}},
			{what: "groups at either", method: get, path: "/api/ipam/vlan-groups/?location=conf-dup-{{sfx}}", status: 200, expect: checks{"count": 0}},
		}},

		{name: "deleting objects others depend on", steps: []step{
			{what: "namespace", method: post, path: "/api/ipam/namespaces/", body: fields{"name": "conf-ns-{{sfx}}"}, status: 201, save: map[string]string{"ns": "id"}},
			{what: "group", method: post, path: "/api/ipam/vlan-groups/", body: fields{"name": "conf-g-{{sfx}}"}, status: 201, save: map[string]string{"g": "id"}},
			{what: "free group", method: post, path: "/api/ipam/vlan-groups/", body: fields{"name": "conf-free-{{sfx}}"}, status: 201, save: map[string]string{"free": "id"}},
			{what: "vlan", method: post, path: "/api/ipam/vlans/", body: fields{"vid": 10, "name": "v10", "status": "Active", "vlan_group": "{{g}}"}, status: 201, save: map[string]string{"v": "id"}},
			{what: "prefix on the vlan", method: post, path: "/api/ipam/prefixes/",
				body: fields{"prefix": "10.10.0.0/16", "status": "Active", "namespace": "{{ns}}", "vlan": "{{v}}"}, status: 201, save: map[string]string{"p": "id"}},
			{what: "ip in it", method: post, path: "/api/ipam/ip-addresses/",
				body: fields{"address": "10.10.0.1/16", "status": "Active", "namespace": "{{ns}}"}, status: 201, save: map[string]string{"ip": "id"}},
			{what: "group with a vlan", method: del, path: "/api/ipam/vlan-groups/{{g}}/", status: 409,
				expect: checks{"": bodyM(`{"detail": "Unable to delete object. 1 dependent objects were found: v10 (10) ({{v}})"}`)}},
			{what: "bulk with the group with a vlan", method: del, path: "/api/ipam/vlan-groups/", body: items{fields{"id": "{{free}}"}, fields{"id": "{{g}}"}}, status: 409},
			{what: "the free group stays", method: get, path: "/api/ipam/vlan-groups/{{free}}/", status: 200},
			{what: "vlan of a prefix", method: del, path: "/api/ipam/vlans/{{v}}/", status: 409},
			{what: "namespace with a prefix", method: del, path: "/api/ipam/namespaces/{{ns}}/", status: 409},
			{what: "the only prefix holding an ip", method: del, path: "/api/ipam/prefixes/{{p}}/", status: 409,
				expect: checks{"": bodyM(`{"detail": "Unable to delete object. 1 dependent objects were found: 10.10.0.1/16 ({{ip}})"}`)}},
		}},

		{name: "paging over ties in the ordering", steps: []step{
			{what: "namespaces", method: post, path: "/api/ipam/namespaces/",
				body:   items{fields{"name": "conf-1-{{sfx}}"}, fields{"name": "conf-2-{{sfx}}"}, fields{"name": "conf-3-{{sfx}}"}, fields{"name": "conf-4-{{sfx}}"}, fields{"name": "conf-5-{{sfx}}"}},
				status: 201, save: map[string]string{"n1": "0.id", "n2": "1.id", "n3": "2.id", "n4": "3.id", "n5": "4.id"}},
			{what: "a prefix in each", method: post, path: "/api/ipam/prefixes/",
				body: items{fields{"prefix": "10.11.0.0/24", "status": "Active", "namespace": "{{n1}}"}, fields{"prefix": "10.11.0.0/24", "status": "Active", "namespace": "{{n2}}"},
					fields{"prefix": "10.11.0.0/24", "status": "Active", "namespace": "{{n3}}"}, fields{"prefix": "10.11.0.0/24", "status": "Active", "namespace": "{{n4}}"},
					fields{"prefix": "10.11.0.0/24", "status": "Active", "namespace": "{{n5}}"}},
				status: 201},
			{what: "one host in each, another in three", method: post, path: "/api/ipam/ip-addresses/",
				body: items{fields{"address": "10.11.0.1/24", "status": "Active", "namespace": "{{n1}}"}, fields{"address": "10.11.0.1/24", "status": "Active", "namespace": "{{n2}}"},
					fields{"address": "10.11.0.1/24", "status": "Active", "namespace": "{{n3}}"}, fields{"address": "10.11.0.1/24", "status": "Active", "namespace": "{{n4}}"},
					fields{"address": "10.11.0.1/24", "status": "Active", "namespace": "{{n5}}"}, fields{"address": "10.11.0.2/24", "status": "Active", "namespace": "{{n1}}"},
					fields{"address": "10.11.0.2/24", "status": "Active", "namespace": "{{n2}}"}, fields{"address": "10.11.0.2/24", "status": "Active", "namespace": "{{n3}}"}},
				status: 201, save: map[string]string{"i1": "0.id", "i2": "1.id", "i3": "2.id", "i4": "3.id", "i5": "4.id", "i6": "5.id", "i7": "6.id", "i8": "7.id"}},
			{what: "pages of 3", pages: &paging{
				path:  "/api/ipam/ip-addresses/?namespace={{n1}}&namespace={{n2}}&namespace={{n3}}&namespace={{n4}}&namespace={{n5}}",
				limit: 3, order: []string{"ip_version", "host", "mask_length"},
				ids: []string{"{{i1}}", "{{i2}}", "{{i3}}", "{{i4}}", "{{i5}}", "{{i6}}", "{{i7}}", "{{i8}}"}}},
		}},

		{name: "requests ipsync sends that the other scenarios do not", steps: []step{
			{what: "content types by id carry no API version", method: get, path: "/api/extras/content-types/?sort=id&limit=2", status: 200,
				expect: checks{"results.0.id": 1, "results": orderedM{"id", false}, "header:API-Version": absent}},
			{what: "a custom field not filtered", method: post, path: "/api/extras/custom-fields/",
				body: fields{"key": "conf_cf_{{sfx}}", "label": "conf cf {{sfx}}", "type": "text", "filter_logic": "disabled", "content_types": items{tVLAN}}, status: 201,
				expect: checks{"filter_logic.value": "disabled"}},
			// Nautobot makes no filter of it: the owner field set so reads
			// as undefined, which apply's preflight refuses by its setting.
			{what: "a filter on it is unknown", method: get, path: "/api/ipam/vlans/?cf_conf_cf_{{sfx}}=x", status: 400,
				expect: checks{"": bodyM(`{"cf_conf_cf_{{sfx}}": ["Unknown filter field"]}`)}},
			{what: "assignments by a prefix's CIDR", method: get, path: "/api/ipam/prefix-location-assignments/?prefix=10.0.0.0/24", status: 400,
				expect: checks{"": bodyM(`{"prefix": ["Select a valid choice. 10.0.0.0/24 is not one of the available choices."]}`)}},
		}},

		{name: "api version negotiation", steps: []step{
			{what: "pinned 2.2", method: get, path: "/api/ipam/namespaces/?limit=1", status: 200, expect: checks{"header:API-Version": "2.2"}},
			{what: "not pinned", method: get, path: "/api/ipam/namespaces/?limit=1", header: map[string]string{"Accept": "application/json"}, status: 200,
				expect: checks{"header:API-Version": perLine{"3.2", "2.4"}}},
			{what: "3.0 on 3.x", line: line3, method: get, path: "/api/ipam/namespaces/?limit=1", header: map[string]string{"Accept": "application/json; version=3.0"}, status: 200,
				expect: checks{"header:API-Version": "3.0"}},
			{what: "3.0 on 2.4", line: line24, method: get, path: "/api/ipam/namespaces/?limit=1", header: map[string]string{"Accept": "application/json; version=3.0"}, status: 406,
				expect: checks{"": bodyM(`{"detail": "Invalid version \"3.0\" in \"Accept\" header. Supported versions are: 2.0, 2.1, 2.2, 2.3, 2.4"}`)}},
			{what: "unknown version", method: get, path: "/api/ipam/namespaces/?limit=1", header: map[string]string{"Accept": "application/json; version=9.9"}, status: 406,
				expect: checks{"detail": perLine{
					`Invalid version "9.9" in "Accept" header. Supported versions are: 2.0, 2.1, 2.2, 2.3, 2.4, 3.0, 3.1, 3.2`,
					`Invalid version "9.9" in "Accept" header. Supported versions are: 2.0, 2.1, 2.2, 2.3, 2.4`}}},
			{what: "a token that does not exist", method: get, path: "/api/ipam/namespaces/?limit=1", header: map[string]string{"Authorization": "Token 0000000000000000000000000000000000000000"},
				status: 403, expect: checks{"": bodyM(`{"detail": "Invalid token"}`)}},
			{what: "no token", method: get, path: "/api/ipam/namespaces/?limit=1", header: map[string]string{"Authorization": ""},
				status: 403, expect: checks{"": bodyM(`{"detail": "Authentication credentials were not provided."}`)}},
			{what: "header and query disagree", method: get, path: "/api/ipam/namespaces/?limit=1&api_version=2.3", status: 400,
				expect: checks{"": bodyM(`{"detail": "Version mismatch between \"Accept\" header and query parameter."}`)}},
			{what: "namespace", method: post, path: "/api/ipam/namespaces/", body: fields{"name": "conf-ns-{{sfx}}"}, status: 201, save: map[string]string{"ns": "id"}},
			{what: "prefix", method: post, path: "/api/ipam/prefixes/", body: fields{"prefix": "10.12.0.0/16", "status": "Active", "namespace": "{{ns}}", "location": "{{location:a11}}"},
				status: 201, save: map[string]string{"p": "id"}},
			{what: "2.1 has one location", method: get, path: "/api/ipam/prefixes/{{p}}/", header: map[string]string{"Accept": "application/json; version=2.1"}, status: 200,
				expect: checks{"location": ref(tLocation, "{{location:a11}}"), "locations": absent, "header:API-Version": "2.1"}},
		}},

		{name: "client-chosen id on create", steps: []step{
			{what: "create with an id", method: post, path: "/api/ipam/namespaces/", body: fields{"id": "{{uuid:n}}", "name": "conf-ns-{{sfx}}"}, status: 201,
				expect: checks{"id": "{{uuid:n}}", "url": "{{base}}/api/ipam/namespaces/{{uuid:n}}/"}},
			{what: "that id again", method: post, path: "/api/ipam/namespaces/", body: fields{"id": "{{uuid:n}}", "name": "conf-other-{{sfx}}"}, status: 400,
				expect: checks{"": bodyM(`{"id": ["Namespace with this Id already exists."]}`)}},
			{what: "not a uuid", method: post, path: "/api/ipam/namespaces/", body: fields{"id": "nope", "name": "conf-other-{{sfx}}"}, status: 400,
				expect: checks{"": bodyM(`{"id": ["Must be a valid UUID."]}`)}},
			{what: "bulk with ids", method: post, path: "/api/ipam/prefixes/",
				body: items{fields{"id": "{{uuid:a}}", "prefix": "10.13.1.0/24", "status": "Active", "namespace": "{{uuid:n}}"},
					fields{"id": "{{uuid:b}}", "prefix": "10.13.2.0/24", "status": "Active", "namespace": "{{uuid:n}}"}},
				status: 201, expect: checks{"0.id": "{{uuid:a}}", "1.id": "{{uuid:b}}"}},
			{what: "read by ids", method: get, path: "/api/ipam/prefixes/?id={{uuid:a}}&id={{uuid:b}}&id={{uuid:nope}}", status: 200,
				expect: checks{"count": 2}},
		}},

		{name: "bulk update and bulk delete", steps: []step{
			{what: "three namespaces", method: post, path: "/api/ipam/namespaces/",
				body: items{fields{"name": "conf-a-{{sfx}}"}, fields{"name": "conf-b-{{sfx}}"}, fields{"name": "conf-c-{{sfx}}"}}, status: 201,
				save: map[string]string{"a": "0.id", "b": "1.id", "c": "2.id"}},
			{what: "update two and one that does not exist", method: patch, path: "/api/ipam/namespaces/",
				body: items{fields{"id": "{{b}}", "description": "y"}, fields{"id": "{{a}}", "description": "x"}, fields{"id": "{{uuid:nope}}", "description": "z"}}, status: 200,
				expect: checks{"": lenM(2), "0.id": "{{a}}", "0.description": "x", "1.id": "{{b}}", "1.description": "y"}},
			{what: "an item without id", method: patch, path: "/api/ipam/namespaces/", body: items{fields{"id": "{{a}}"}, fields{"description": "no id"}}, status: 400,
				expect: checks{"": bodyM(`[{}, {"id": ["This field is required."]}]`)}},
			{what: "not a list", method: patch, path: "/api/ipam/namespaces/", body: fields{"id": "{{a}}", "description": "x"}, status: 400,
				expect: checks{"": bodyM(`{"non_field_errors": ["Expected a list of items but got type \"dict\"."]}`)}},
			{what: "a clash", method: patch, path: "/api/ipam/namespaces/",
				body: items{fields{"id": "{{a}}", "description": "changed"}, fields{"id": "{{b}}", "name": "conf-a-{{sfx}}"}}, status: 400,
				expect: checks{"": bodyM(`{"name": ["namespace with this name already exists."]}`)}},
			{what: "all or none", method: get, path: "/api/ipam/namespaces/{{a}}/", status: 200, expect: checks{"description": "x"}},
			{what: "delete two and one that does not exist", method: del, path: "/api/ipam/namespaces/",
				body: items{fields{"id": "{{a}}"}, fields{"id": "{{b}}"}, fields{"id": "{{uuid:nope}}"}}, status: 204},
			{what: "gone", method: get, path: "/api/ipam/namespaces/?id={{a}}&id={{b}}&id={{c}}", status: 200, expect: checks{"count": 1, "results.0.id": "{{c}}"}},
		}},
	}
}
