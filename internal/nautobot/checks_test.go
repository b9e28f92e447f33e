package nautobot

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// at places o in a spec file at line, as the spec loader does.
func at(o resource.Object, line int) resource.Object {
	o.Meta().Owner = owner
	o.Meta().Source = resource.Source{File: "specs/site.yaml", Line: line, Col: 5}
	return o
}

// checkCase is a desired object and the problems a plan must report for
// it before any write: "line: field: words of the message".
type checkCase struct {
	obj  resource.Object
	want []string
}

// planProblems plans the objects against target, which must refuse the
// plan before anything is written, and compares its problems with the
// cases'.
func planProblems(t *testing.T, target *Target, cases []checkCase) {
	t.Helper()
	ctx := context.Background()
	var desired []resource.Object
	var want []string
	for _, c := range cases {
		desired = append(desired, c.obj)
		for _, w := range c.want {
			want = append(want, "specs/site.yaml:"+w)
		}
	}
	r, err := reconcile.Plan(ctx, desired, target, plan.DefaultPolicy(owner))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range r.Problems {
		got = append(got, p.String())
	}
	for _, w := range want {
		line, words, _ := strings.Cut(w, "|")
		if !slices.ContainsFunc(got, func(g string) bool {
			if !strings.HasPrefix(g, line) {
				return false
			}
			for _, word := range strings.Split(words, "|") {
				if !strings.Contains(g, word) {
					return false
				}
			}
			return true
		}) {
			t.Errorf("problems lack %q:\n  %s", w, strings.Join(got, "\n  "))
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d problems, want %d:\n  %s", len(got), len(want), strings.Join(got, "\n  "))
	}
	if len(want) > 0 {
		if _, err := r.Apply(ctx); !errors.Is(err, reconcile.ErrRefused) {
			t.Errorf("Apply = %v, want the plan refused before any write", err)
		}
	}
}

// TestContentTypesCheckedAtPlan: a status or role not allowed on an
// object's content type, and a location whose type may not hold the
// object, are refused at plan time with the spec's file:line, before any
// write; what Nautobot would take passes.
func TestContentTypesCheckedAtPlan(t *testing.T) {
	e := newEnv(t, nil, false)
	ctx := context.Background()
	for _, o := range []struct {
		path string
		body map[string]any
	}{
		{pathRoles, map[string]any{"name": "anycast", "content_types": []string{"ipam.ipaddress"}}},
		{pathTags, map[string]any{"name": "rack", "content_types": []string{"dcim.device"}}},
		{pathLocationTypes, map[string]any{"name": "Region", "content_types": []string{"dcim.device"}}},
		{pathLocations, map[string]any{"name": "r1", "location_type": map[string]any{"name": "Region"}, "status": map[string]any{"name": "Active"}}},
	} {
		if _, err := e.c.Call(ctx, http.MethodPost, o.path, nil, o.body, nil); err != nil {
			t.Fatal(err)
		}
	}
	planProblems(t, e.c.Target(scope.Scope{Owner: owner}), []checkCase{
		{at(&resource.Prefix{Namespace: "Global", Prefix: pfx("10.1.0.0/24"), Status: "Retired"}, 3),
			[]string{`3:5: status|status "Retired" may not be used on ipam.prefix|allowed there: Active`}},
		{at(&resource.VLANGroup{Name: "g", Location: "r1"}, 7),
			[]string{`7:5: location|location "r1" is a "Region"|may not hold ipam.vlangroup`}},
		{at(&resource.VLAN{Group: "g", VID: 5, Name: "v", Status: "Active", Role: "anycast"}, 9),
			[]string{`9:5: role|role "anycast" may not be used on ipam.vlan|roles allowed there: loopback, oob, provisioning, storage, tenant-net`}},
		{at(&resource.Prefix{Namespace: "Global", Prefix: pfx("10.2.0.0/24"), Status: "Active", Locations: []string{"a11", "r1"}}, 12),
			[]string{`12:5: locations|location "r1" is a "Region"|ipam.prefix`}},
		{at(&resource.ASN{ASN: 65001, Status: "Active", Tags: []string{"blue", "rack"}}, 14),
			[]string{`14:5: tags|tag "rack" may not be used on nautobot_bgp_models.autonomoussystem`}},
		// Nautobot does not check a namespace's location against its type.
		{at(&resource.Namespace{Name: "n", Location: "r1"}, 15), nil},
		{at(&resource.IPAddress{Namespace: "Global", Address: pfx("10.1.0.5/24"), Status: "Active", Role: "anycast"}, 17), nil},
		{at(&resource.Prefix{Namespace: "Global", Prefix: pfx("10.3.0.0/24"), Status: "Reserved", Locations: []string{"a12"}}, 19), nil},
	})
}

// TestRealContentTypesCheckedAtPlan: the same against real servers,
// with their stock statuses and roles.
func TestRealContentTypesCheckedAtPlan(t *testing.T) {
	servertest.EachReal(t, func(t *testing.T, srv *servertest.Server) {
		e := newRealEnv(t, srv, nil)
		lt := e.create(pathLocationTypes, map[string]any{"name": e.name("region"), "content_types": []string{"dcim.device"}})
		region := e.name("r1")
		e.create(pathLocations, map[string]any{"name": region, "location_type": lt, "status": map[string]any{"name": "Active"}})
		rack := e.name("rack")
		e.create(pathTags, map[string]any{"name": rack, "content_types": []string{"ipam.prefix"}})
		ns := e.name("ns")
		planProblems(t, e.c.Target(scope.Scope{Owner: owner}), []checkCase{
			{at(&resource.Namespace{Name: ns, Location: region}, 2), nil},
			{at(&resource.Prefix{Namespace: ns, Prefix: pfx("10.1.0.0/24"), Status: "Retired"}, 3),
				[]string{`3:5: status|status "Retired" may not be used on ipam.prefix|Active, Deprecated, Reserved`}},
			{at(&resource.VLANGroup{Name: e.name("g"), Location: region}, 7),
				[]string{fmt.Sprintf(`7:5: location|location %q is a %q|ipam.vlangroup`, region, e.name("region"))}},
			{at(&resource.VLAN{Group: e.name("g"), VID: 5, Name: "v", Status: "Available"}, 9),
				[]string{`9:5: status|status "Available" may not be used on ipam.vlan`}},
			{at(&resource.Prefix{Namespace: ns, Prefix: pfx("10.2.0.0/24"), Status: "Active", Role: "Anycast", Locations: []string{region}}, 12),
				[]string{`12:5: role|role "Anycast" may not be used on ipam.prefix`, fmt.Sprintf(`12:5: locations|location %q|ipam.prefix`, region)}},
			{at(&resource.ASN{ASN: 4200000001, Status: "Reserved", Tags: []string{"blue", rack}}, 14),
				[]string{`14:5: status|status "Reserved" may not be used on nautobot_bgp_models.autonomoussystem|Active, Available, Planned`,
					fmt.Sprintf(`14:5: tags|tag %q may not be used on nautobot_bgp_models.autonomoussystem`, rack)}},
			{at(&resource.IPAddress{Namespace: ns, Address: pfx("10.1.0.5/24"), Status: "Active", Role: "Anycast"}, 17), nil},
		})
		if got := e.stored("/api/ipam/namespaces/", url.Values{"name": {ns}}); len(got) != 0 {
			t.Errorf("the refused plan wrote namespace %s", ns)
		}
	})
}

// TestLocationNames: a location is named by its name where that is
// unique, else by its path from the root.
func TestLocationNames(t *testing.T) {
	loc := func(id, name, parent string) named {
		n := named{ID: id, Name: name}
		if parent != "" {
			n.Parent = &ref{ID: parent}
		}
		return n
	}
	tests := []struct {
		name       string
		locs       []named
		wantNames  map[string]string
		wantShared map[string][]string
	}{
		{"unique names", []named{loc("1", "DC-A11", ""), loc("2", "a11", "1")},
			map[string]string{"1": "DC-A11", "2": "a11"}, map[string][]string{}},
		{"a name under two parents", []named{loc("1", "DC-A11", ""), loc("2", "DC-B22", ""), loc("3", "row1", "1"), loc("4", "row1", "2"), loc("5", "row2", "2")},
			map[string]string{"1": "DC-A11", "2": "DC-B22", "3": "DC-A11/row1", "4": "DC-B22/row1", "5": "row2"},
			map[string][]string{"row1": {"DC-A11/row1", "DC-B22/row1"}}},
		{"deeper", []named{loc("1", "EU", ""), loc("2", "DC", "1"), loc("3", "US", ""), loc("4", "DC", "3"), loc("5", "r", "2"), loc("6", "r", "4")},
			map[string]string{"1": "EU", "2": "EU/DC", "3": "US", "4": "US/DC", "5": "EU/DC/r", "6": "US/DC/r"},
			map[string][]string{"DC": {"EU/DC", "US/DC"}, "r": {"EU/DC/r", "US/DC/r"}}},
		{"a path that is another location's name", []named{loc("1", "A", ""), loc("2", "B", "1"), loc("3", "B", ""), loc("4", "A/B", "")},
			map[string]string{"1": "A", "3": "B"},
			map[string][]string{"B": {"A/B", "B"}, "A/B": {"A/B"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := map[string]named{}
			for _, l := range tt.locs {
				m[l.ID] = l
			}
			names, shared := locationNames(m)
			if !maps.Equal(names, tt.wantNames) {
				t.Errorf("names = %v, want %v", names, tt.wantNames)
			}
			if !maps.EqualFunc(shared, tt.wantShared, slices.Equal) {
				t.Errorf("shared = %v, want %v", shared, tt.wantShared)
			}
		})
	}
}

// TestRealRepeatedLocationNames: with one location name under two
// parents on a real server, the bare name is refused at plan time as
// ambiguous, naming both paths; a path resolves to the right location,
// is written there, reads back the same, and plans no change.
func TestRealRepeatedLocationNames(t *testing.T) {
	servertest.EachReal(t, func(t *testing.T, srv *servertest.Server) {
		e := newRealEnv(t, srv, nil)
		ctx := context.Background()
		lt := e.create(pathLocationTypes, map[string]any{"name": e.name("lt"), "nestable": true,
			"content_types": []string{"ipam.namespace", "ipam.vlangroup", "ipam.prefix", "ipam.vlan"}})
		dup := e.name("row")
		var paths []string
		ids := map[string]string{}
		for i := range 2 {
			parent := e.name(fmt.Sprintf("dc%d", i))
			pid := e.create(pathLocations, map[string]any{"name": parent, "location_type": lt, "status": map[string]any{"name": "Active"}})
			ids[parent+"/"+dup] = e.create(pathLocations, map[string]any{"name": dup, "parent": pid, "location_type": lt, "status": map[string]any{"name": "Active"}})
			paths = append(paths, parent+"/"+dup)
		}
		target := e.c.Target(scope.Scope{Owner: owner})
		ns := e.name("ns")
		planProblems(t, target, []checkCase{
			{at(&resource.Namespace{Name: ns, Location: dup}, 4),
				[]string{fmt.Sprintf("4:5: location|location %q is ambiguous|%s, %s", dup, paths[0], paths[1])}},
		})
		desired := []resource.Object{
			at(&resource.Namespace{Name: ns, Location: paths[1]}, 4),
			at(&resource.VLANGroup{Name: e.name("g"), Location: paths[0]}, 6),
			at(&resource.Prefix{Namespace: ns, Prefix: pfx("10.5.0.0/24"), Type: resource.PrefixNetwork, Status: "Active", Locations: []string{paths[1], paths[0]}}, 8),
		}
		r, err := reconcile.Plan(ctx, desired, target, plan.DefaultPolicy(owner))
		if err != nil || len(r.Problems) > 0 {
			t.Fatalf("plan with location paths: %v %v", err, r.Problems)
		}
		if _, err := r.Apply(ctx); err != nil {
			t.Fatal(err)
		}
		stored := e.stored("/api/ipam/prefixes/", url.Values{"namespace": {ns}})
		if len(stored) != 1 {
			t.Fatalf("%d prefixes stored in %s, want 1", len(stored), ns)
		}
		var got []string
		for _, l := range stored[0]["locations"].([]any) {
			got = append(got, l.(map[string]any)["id"].(string))
		}
		slices.Sort(got)
		want := []string{ids[paths[0]], ids[paths[1]]}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("prefix stored at locations %v, want %v", got, want)
		}
		if g := e.stored("/api/ipam/vlan-groups/", url.Values{"name": {e.name("g")}}); len(g) != 1 || g[0]["location"].(map[string]any)["id"] != ids[paths[0]] {
			t.Errorf("vlan group stored as %v, want at %s", g, paths[0])
		}
		r, err = reconcile.Plan(ctx, desired, target, plan.DefaultPolicy(owner))
		if err != nil {
			t.Fatal(err)
		}
		if r.Plan.Writes() != 0 || len(r.Problems) > 0 {
			t.Errorf("second plan: %d writes, problems %v; want none: %+v", r.Plan.Writes(), r.Problems, r.Plan.Changes)
		}
	})
}
