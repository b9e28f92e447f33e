package netbox

import (
	"maps"
	"testing"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/resource"
)

// TestSettle takes out of the changes the lookups that still have the name
// the last whole read knew them by, and only those.
func TestSettle(t *testing.T) {
	lk := &lookups{refs: map[resource.Kind]names{
		resource.RefTag:    newNames([]named{{ID: 5, Name: "managed-by-ipsync"}, {ID: 6, Name: "ipsync-lease:static:deploy"}}),
		resource.RefTenant: newNames([]named{{ID: 5, Name: "acme"}}),
	}}
	rec := func(typ string, id int, action, repr string) wireChange {
		return wireChange{Type: typ, Changed: id, Action: choice{Value: action}, Repr: repr}
	}
	tests := []struct {
		name    string
		records []wireChange // in the order read
		want    map[string]map[string]bool
	}{
		{"a tag's description rewritten", []wireChange{rec("extras.tag", 6, "update", "ipsync-lease:static:deploy")}, map[string]map[string]bool{}},
		{"a tag renamed", []wireChange{rec("extras.tag", 5, "update", "managed")},
			map[string]map[string]bool{"extras.tag": {"5": false}}},
		{"a tag deleted", []wireChange{rec("extras.tag", 5, "delete", "managed-by-ipsync")},
			map[string]map[string]bool{"extras.tag": {"5": true}}},
		// A lease released and taken again, as an agent's restart does.
		{"a lease tag deleted and another created", []wireChange{rec("extras.tag", 6, "delete", "ipsync-lease:static:deploy"),
			rec("extras.tag", 8, "create", "ipsync-lease:static:deploy")}, map[string]map[string]bool{}},
		{"a tag created", []wireChange{rec("extras.tag", 7, "create", "new")},
			map[string]map[string]bool{"extras.tag": {"7": false}}},
		{"a tag renamed and renamed back", []wireChange{
			{Type: "extras.tag", ID: 1, Changed: 5, Action: choice{Value: "update"}, Repr: "managed"},
			{Type: "extras.tag", ID: 2, Changed: 5, Action: choice{Value: "update"}, Repr: "managed-by-ipsync"}},
			map[string]map[string]bool{}},
		{"a tenant edited, a tag renamed", []wireChange{rec("tenancy.tenant", 5, "update", "acme"), rec("extras.tag", 5, "update", "other")},
			map[string]map[string]bool{"extras.tag": {"5": false}}},
		{"a location edited keeping its name", []wireChange{rec("dcim.location", 5, "update", "acme")},
			map[string]map[string]bool{"dcim.location": {"5": false}}},
		{"a VLAN edited", []wireChange{rec("ipam.vlan", 5, "update", "acme")},
			map[string]map[string]bool{"ipam.vlan": {"5": false}}},
	}
	c := &Client{cfg: Config{LocationScope: ScopeSite}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rr := &reading{c: c, m: &mapper{l: lk}}
			ch := changelog.Changes{Objects: map[string]map[string]bool{}, Names: map[string]map[string]string{}}
			for _, w := range tt.records { // oldest first: the last name stays
				e := w.entry()
				if ch.Objects[e.Type] == nil {
					ch.Objects[e.Type], ch.Names[e.Type] = map[string]bool{}, map[string]string{}
				}
				ch.Objects[e.Type][e.ObjectID] = ch.Objects[e.Type][e.ObjectID] || e.Deleted
				ch.Names[e.Type][e.ObjectID] = e.Name
			}
			if err := rr.Settle(t.Context(), ch); err != nil {
				t.Fatal(err)
			}
			if !maps.EqualFunc(ch.Objects, tt.want, maps.Equal) {
				t.Errorf("Settle = %v, want %v", ch.Objects, tt.want)
			}
		})
	}
}
