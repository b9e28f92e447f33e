package netbox

import (
	"context"
	"slices"
	"testing"

	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// TestScopedReads reads a real NetBox holding the objects of two owners
// and unmarked ones, through the scopes the CLI uses: what the scope
// narrows to is read, the owner's objects are read wherever they are, and
// only objects with the owner's marker (tag and custom field) are owned.
func TestScopedReads(t *testing.T) {
	e := realEnv(t, nil, false)
	ctx := context.Background()
	other := resource.Owner("neutron:a12")
	mine := func() resource.Meta { return resource.Meta{Owner: owner} }
	theirs := func() resource.Meta { return resource.Meta{Owner: other} }
	objs := []resource.Object{
		&resource.Namespace{M: mine(), Name: "a11"},
		&resource.Namespace{M: theirs(), Name: "a12"},
		&resource.Namespace{M: mine(), Name: "a11-extra"},
		&resource.VLANGroup{M: mine(), Name: "a11-net", Location: "a11"},
		&resource.VLANGroup{M: theirs(), Name: "a12-net", Location: "a12"},
		&resource.VLAN{M: mine(), Group: "a11-net", VID: 10, Name: "ten", Status: "Active"},
		&resource.VLAN{M: mine(), Group: "a12-net", VID: 11, Name: "eleven", Status: "Active"},
		&resource.VLAN{M: theirs(), Group: "a12-net", VID: 12, Name: "twelve", Status: "Active"},
		&resource.Prefix{M: mine(), Namespace: "a11", Prefix: pfx("10.11.0.0/24"), Type: resource.PrefixNetwork, Status: "Active", Locations: []string{"a11"}},
		&resource.Prefix{M: mine(), Namespace: "a11-extra", Prefix: pfx("10.11.9.0/24"), Type: resource.PrefixNetwork, Status: "Active"},
		&resource.Prefix{M: theirs(), Namespace: "a12", Prefix: pfx("10.12.0.0/24"), Type: resource.PrefixNetwork, Status: "Active", Locations: []string{"a12"}},
		&resource.Prefix{M: theirs(), Namespace: GlobalNamespace, Prefix: pfx("10.99.0.0/24"), Type: resource.PrefixNetwork, Status: "Active"},
		&resource.IPAddress{M: mine(), Namespace: "a11", Address: pfx("10.11.0.5/24"), Status: "Active"},
		&resource.IPAddress{M: mine(), Namespace: "a11-extra", Address: pfx("10.11.9.5/24"), Status: "Active"},
		&resource.IPAddress{M: theirs(), Namespace: "a12", Address: pfx("10.12.0.5/24"), Status: "Active"},
	}
	if _, err := e.c.Apply(ctx, creates(objs...)); err != nil {
		t.Fatal(err)
	}
	// By hand: an unmarked VLAN, and a prefix that copies the owner field
	// without the tag.
	e.call("POST", "/api/ipam/vlans/", map[string]any{"group": e.s.ID(t, "ipam.vlangroup", "a11-net"), "vid": 20, "name": "by-hand"}, nil)
	e.call("POST", "/api/ipam/prefixes/", map[string]any{"prefix": "10.11.1.0/24", "vrf": e.s.ID(t, "ipam.vrf", "a11"),
		"custom_fields": map[string]any{"ipsync_owner": string(owner)}}, nil)

	cases := []struct {
		name  string
		scope scope.Scope
		read  []string // keys read, sorted
		owned []string // keys read as owned by the scope's owner
	}{
		{"site scope: its namespace and groups, its owner's objects elsewhere",
			scope.Site(owner, "a11", []string{"a11-net"}),
			[]string{"ip_address a11-extra/10.11.9.5", "ip_address a11/10.11.0.5",
				"namespace a11", "namespace a11-extra",
				"prefix a11-extra/10.11.9.0/24", "prefix a11/10.11.0.0/24", "prefix a11/10.11.1.0/24",
				"vlan a11-net/10", "vlan a11-net/20", "vlan a12-net/11",
				"vlan_group a11-net", "vlan_group a12-net"},
			[]string{"ip_address a11-extra/10.11.9.5", "ip_address a11/10.11.0.5", "namespace a11", "namespace a11-extra",
				"prefix a11-extra/10.11.9.0/24", "prefix a11/10.11.0.0/24", "vlan a11-net/10", "vlan a12-net/11", "vlan_group a11-net"}},
		{"the other owner's site scope",
			scope.Site(other, "a12", []string{"a12-net"}),
			[]string{"ip_address a12/10.12.0.5", "namespace a12",
				"prefix Global/10.99.0.0/24", "prefix a12/10.12.0.0/24", "vlan a12-net/11", "vlan a12-net/12",
				"vlan_group a11-net", "vlan_group a12-net"},
			[]string{"ip_address a12/10.12.0.5", "namespace a12", "prefix Global/10.99.0.0/24", "prefix a12/10.12.0.0/24",
				"vlan a12-net/12", "vlan_group a12-net"}},
		{"every kind, not narrowed: the global table is a namespace nobody owns",
			scope.Scope{Owner: owner, Kinds: []resource.Kind{resource.KindNamespace}},
			[]string{"namespace Global", "namespace a11", "namespace a11-extra", "namespace a12"},
			[]string{"namespace a11", "namespace a11-extra"}},
		{"global table only",
			scope.Scope{Owner: owner, Kinds: []resource.Kind{resource.KindPrefix}, Namespaces: []string{GlobalNamespace}},
			[]string{"prefix Global/10.99.0.0/24", "prefix a11-extra/10.11.9.0/24", "prefix a11/10.11.0.0/24"},
			[]string{"prefix a11-extra/10.11.9.0/24", "prefix a11/10.11.0.0/24"}},
		{"by location",
			scope.Scope{Owner: other, Kinds: []resource.Kind{resource.KindVLANGroup, resource.KindPrefix}, Locations: []string{"a12"}},
			[]string{"prefix Global/10.99.0.0/24", "prefix a12/10.12.0.0/24", "vlan_group a12-net"},
			[]string{"prefix Global/10.99.0.0/24", "prefix a12/10.12.0.0/24", "vlan_group a12-net"}},
		{"an unknown namespace matches nothing but the owner's",
			scope.Scope{Owner: other, Kinds: []resource.Kind{resource.KindIPAddress}, Namespaces: []string{"nowhere"}},
			[]string{"ip_address a12/10.12.0.5"}, []string{"ip_address a12/10.12.0.5"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := e.c.List(ctx, tc.scope)
			if err != nil {
				t.Fatal(err)
			}
			var read, owned []string
			for _, o := range got {
				read = append(read, o.Key().String())
				if o.Meta().Owner == tc.scope.Owner {
					owned = append(owned, o.Key().String())
				}
			}
			slices.Sort(read)
			slices.Sort(owned)
			if !slices.Equal(read, tc.read) {
				t.Errorf("read %q,\nwant %q", read, tc.read)
			}
			if !slices.Equal(owned, tc.owned) {
				t.Errorf("owned by %s: %q,\nwant %q", tc.scope.Owner, owned, tc.owned)
			}
		})
	}
}
