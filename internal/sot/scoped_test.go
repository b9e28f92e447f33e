package sot

import (
	"errors"
	"net/netip"
	"net/url"
	"slices"
	"testing"

	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

type owned struct {
	ID    string
	Owner bool
}

// TestScoped: the owner's read asks only for what the scope's did not
// return, and keeps only what carries the owner's marker as read.
func TestScoped(t *testing.T) {
	for _, tc := range []struct {
		name      string
		filter    url.Values
		narrowed  bool
		owner     url.Values
		readOwned bool
		extra     url.Values
		want      []string
		asked     []string
	}{
		{name: "not narrowed: one read", filter: url.Values{"site": {"a"}}, owner: url.Values{"cf": {"me"}},
			want: []string{"1", "2"}, asked: []string{"site=a"}},
		{name: "no owner: one read", filter: url.Values{"site": {"a"}}, narrowed: true,
			want: []string{"1", "2"}, asked: []string{"site=a"}},
		{name: "narrowed with an owner", filter: url.Values{"site": {"a"}}, narrowed: true, owner: url.Values{"cf": {"me"}},
			want: []string{"1", "2", "3"}, asked: []string{"site=a", "cf=me"}},
		{name: "the owner's own read", filter: url.Values{"site": {"a"}}, narrowed: true, owner: url.Values{"cf": {"me"}},
			readOwned: true, want: []string{"1", "2", "3"}, asked: []string{"site=a", "owned cf=me"}},
		{name: "a filter naming nothing is not sent", filter: url.Values{"site": {}}, narrowed: true, owner: url.Values{"cf": {"me"}},
			want: []string{"2", "3"}, asked: []string{"cf=me"}},
		{name: "reread: the owner's read asks for the ids not found", filter: url.Values{"site": {"a"}}, narrowed: true,
			owner: url.Values{"cf": {"me"}}, extra: url.Values{"id": {"1", "3"}},
			want: []string{"1", "2", "3"}, asked: []string{"id=1&id=3&site=a", "cf=me&id=3"}},
		{name: "reread: every id found", filter: url.Values{"site": {"a"}}, narrowed: true,
			owner: url.Values{"cf": {"me"}}, extra: url.Values{"id": {"1", "2"}},
			want: []string{"1", "2"}, asked: []string{"id=1&id=2&site=a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			answer := func(q url.Values) []owned {
				if q.Has("cf") {
					// A loose filter: the owner's read returns another's object too.
					return []owned{{"2", true}, {"3", true}, {"4", false}}
				}
				return []owned{{"1", false}, {"2", true}}
			}
			s := Scoped[owned]{
				Read:   func(q url.Values) ([]owned, error) { asked = append(asked, q.Encode()); return answer(q), nil },
				Filter: tc.filter, Narrowed: tc.narrowed, Owned: tc.owner,
				ID: func(o *owned) string { return o.ID }, Owns: func(o *owned) bool { return o.Owner },
			}
			if tc.readOwned {
				s.ReadOwned = func(q url.Values) ([]owned, error) {
					asked = append(asked, "owned "+q.Encode())
					return answer(q), nil
				}
			}
			got, err := s.Sweep(tc.extra)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, o := range got {
				ids = append(ids, o.ID)
			}
			if !slices.Equal(ids, tc.want) || !slices.Equal(asked, tc.asked) {
				t.Errorf("Sweep = %q asking %q, want %q asking %q", ids, asked, tc.want, tc.asked)
			}
		})
	}
	for failing := 1; failing <= 2; failing++ {
		n := 0
		s := Scoped[owned]{Read: func(url.Values) ([]owned, error) {
			if n++; n == failing {
				return nil, errFake
			}
			return nil, nil
		}, Narrowed: true, Owned: url.Values{"cf": {"me"}}, ID: func(o *owned) string { return o.ID }}
		if _, err := s.Sweep(nil); !errors.Is(err, errFake) {
			t.Errorf("Sweep with read %d failing = %v, want the error", failing, err)
		}
	}
}

// TestObjects: of namespaces and groups, read whole, the scope keeps
// those it selects and its owner's; kinds not wanted are dropped.
func TestObjects(t *testing.T) {
	ns := func(name, loc string, owner resource.Owner) *resource.Namespace {
		return &resource.Namespace{M: resource.Meta{Owner: owner}, Name: name, Location: loc}
	}
	grp := func(name, loc string, owner resource.Owner) *resource.VLANGroup {
		return &resource.VLANGroup{M: resource.Meta{Owner: owner}, Name: name, Location: loc}
	}
	namespaces := []*resource.Namespace{ns("a", "A", ""), ns("b", "B", ""), ns("c", "", me), ns("d", "", "static:other")}
	groups := []*resource.VLANGroup{grp("g1", "A", ""), grp("g2", "B", ""), grp("g3", "C", me)}
	prefixes := []*resource.Prefix{{Namespace: "z", Prefix: netip.MustParsePrefix("10.0.0.0/8")}}
	id := func(o *resource.Namespace) *resource.Namespace { return o }
	gid := func(o *resource.VLANGroup) *resource.VLANGroup { return o }
	pid := func(o *resource.Prefix) *resource.Prefix { return o }
	all := []resource.Kind{resource.KindNamespace, resource.KindVLANGroup, resource.KindPrefix}
	for _, tc := range []struct {
		name string
		sc   scope.Scope
		want []resource.Kind
		keys []string
	}{
		{"everything", scope.Scope{}, all,
			[]string{"namespace a", "namespace b", "namespace c", "namespace d", "vlan_group g1", "vlan_group g2", "vlan_group g3", "prefix z/10.0.0.0/8"}},
		{"by names", scope.Scope{Owner: me, Namespaces: []string{"b", "x"}}, all,
			[]string{"namespace b", "namespace c", "vlan_group g1", "vlan_group g2", "vlan_group g3", "prefix z/10.0.0.0/8"}},
		{"by location", scope.Scope{Owner: me, Locations: []string{"A"}}, all,
			[]string{"namespace a", "namespace c", "vlan_group g1", "vlan_group g3", "prefix z/10.0.0.0/8"}},
		{"by names and location", scope.Scope{Namespaces: []string{"a", "b"}, Locations: []string{"B"}}, all,
			[]string{"namespace b", "vlan_group g2", "prefix z/10.0.0.0/8"}},
		{"kinds wanted", scope.Scope{}, []resource.Kind{resource.KindVLANGroup}, []string{"vlan_group g1", "vlan_group g2", "vlan_group g3"}},
	} {
		got, err := Objects(tc.sc, tc.want, 0, MapEach(namespaces, id), MapEach(groups, gid), MapEach(prefixes, pid))
		if err != nil {
			t.Fatal(err)
		}
		var ks []string
		for _, o := range got {
			ks = append(ks, o.Key().String())
		}
		if !slices.Equal(ks, tc.keys) {
			t.Errorf("Objects %s = %q, want %q", tc.name, ks, tc.keys)
		}
	}
	bad := Map([]string{"ok", "bad", "never"}, func(s string) (*resource.Namespace, error) {
		if s == "bad" {
			return nil, errFake
		}
		if s == "never" {
			t.Error("mapped past an error")
		}
		return ns(s, "", ""), nil
	})
	if _, err := Objects(scope.Scope{}, all, 0, bad); !errors.Is(err, errFake) {
		t.Errorf("Objects of a failing mapping = %v", err)
	}
	// A consumer that stops early stops the mapping.
	for range MapEach([]string{"a", "b"}, func(s string) *resource.Namespace { return ns(s, "", "") }) {
		break
	}
}
