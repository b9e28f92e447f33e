package netboxtest

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"
)

// change is a change log record as the adapter reads it.
type change struct {
	ID     int       `json:"id"`
	Time   time.Time `json:"time"`
	Action struct {
		Value string `json:"value"`
	} `json:"action"`
	Type     string `json:"changed_object_type"`
	ObjectID int    `json:"changed_object_id"`
	Repr     string `json:"object_repr"`
}

// changes reads the change log with the records after id since and the
// filters in q, as "type id action repr" lines, oldest first.
func changes(t *testing.T, s *Server, since int, q url.Values) []string {
	t.Helper()
	q.Set("fields", "id,time,action,changed_object_type,changed_object_id,object_repr")
	q.Set("id__gt", fmt.Sprint(since))
	q.Set("start", "0")
	var p struct {
		Next    *string  `json:"next"`
		Results []change `json:"results"`
	}
	s.Do(t, http.MethodGet, "/api/core/object-changes/?"+q.Encode(), nil, nil).JSON(t, &p)
	if p.Next != nil {
		t.Fatalf("more than one page of changes since %d", since)
	}
	var out []string
	for _, c := range p.Results {
		out = append(out, fmt.Sprintf("%s %d %s %s", c.Type, c.ObjectID, c.Action.Value, c.Repr))
	}
	return out
}

// newest is the id and time of the newest record in the change log.
func newest(t *testing.T, s *Server) change {
	t.Helper()
	var p struct {
		Results []change `json:"results"`
	}
	s.Do(t, http.MethodGet, "/api/core/object-changes/?ordering=-time&limit=1&fields=id,time", nil, nil).JSON(t, &p)
	if len(p.Results) != 1 {
		t.Fatalf("the change log is empty")
	}
	return p.Results[0]
}

// TestFactChangeLog pins what following NetBox 4.7's change log
// (/api/core/object-changes/) relies on: records name the object type as
// "app.model" and its id as an integer, object_repr is a named object's
// name after the change, changed_object_type takes several types, and
// time_after selects records at or after a time while time__gte, a filter
// NetBox does not know, is ignored: the whole log comes back.
func TestFactChangeLog(t *testing.T) {
	s := New(t)
	start := newest(t, s).ID
	g := create(t, s, "/api/ipam/vlan-groups/", map[string]any{"name": "log-g", "slug": "log-g"})
	v := create(t, s, "/api/ipam/vlans/", map[string]any{"group": g, "vid": 10, "name": "ten"})
	tag := create(t, s, "/api/extras/tags/", map[string]any{"name": "log-t", "slug": "log-t"})
	s.Call(t, http.MethodPatch, detailPath(t, "extras.tag", tag), map[string]any{"name": "log-u"}, nil)
	mid := newest(t, s)
	s.Call(t, http.MethodPatch, detailPath(t, "ipam.vlan", v), map[string]any{"description": "x"}, nil)

	at := url.Values{"time_after": {mid.Time.UTC().Format("2006-01-02T15:04:05.000000Z07:00")}}
	cases := []struct {
		name string
		q    url.Values
		want []string
	}{
		{"every record", url.Values{}, []string{
			fmt.Sprintf("ipam.vlangroup %d create log-g", g), fmt.Sprintf("ipam.vlan %d create ten (10)", v),
			fmt.Sprintf("extras.tag %d create log-t", tag), fmt.Sprintf("extras.tag %d update log-u", tag),
			fmt.Sprintf("ipam.vlan %d update ten (10)", v)}},
		{"two types", url.Values{"changed_object_type": {"ipam.vlan", "ipam.vlangroup"}}, []string{
			fmt.Sprintf("ipam.vlangroup %d create log-g", g), fmt.Sprintf("ipam.vlan %d create ten (10)", v),
			fmt.Sprintf("ipam.vlan %d update ten (10)", v)}},
		{"an unknown type selects nothing", url.Values{"changed_object_type": {"ipam.nothing"}}, nil},
		{"time_after is inclusive", at, []string{
			fmt.Sprintf("extras.tag %d update log-u", tag), fmt.Sprintf("ipam.vlan %d update ten (10)", v)}},
		{"time__gte is ignored", url.Values{"time__gte": at["time_after"]}, []string{
			fmt.Sprintf("ipam.vlangroup %d create log-g", g), fmt.Sprintf("ipam.vlan %d create ten (10)", v),
			fmt.Sprintf("extras.tag %d create log-t", tag), fmt.Sprintf("extras.tag %d update log-u", tag),
			fmt.Sprintf("ipam.vlan %d update ten (10)", v)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := changes(t, s, start, tc.q); !slices.Equal(got, tc.want) {
				t.Errorf("changes = %q,\nwant %q", got, tc.want)
			}
		})
	}
}

// TestFactChangeLogUnlogged pins which changes reach objects without a
// record of their own: a VLAN group renamed changes nothing logged of its
// VLANs; a location moved to another site moves the prefixes scoped to it
// (the site filter follows, by database triggers) with no record for
// them. A site deleted deletes the prefixes and VLAN groups scoped to it,
// and a tag deleted untags its objects, each with a record.
func TestFactChangeLogUnlogged(t *testing.T) {
	s := New(t)
	site := func(name string) int {
		return create(t, s, "/api/dcim/sites/", map[string]any{"name": name, "slug": name})
	}
	s1, s2, s3 := site("log-s1"), site("log-s2"), site("log-s3")
	loc := create(t, s, "/api/dcim/locations/", map[string]any{"name": "log-l", "slug": "log-l", "site": s1})
	g := create(t, s, "/api/ipam/vlan-groups/", map[string]any{"name": "log-g", "slug": "log-g", "scope_type": "dcim.site", "scope_id": s3})
	tag := create(t, s, "/api/extras/tags/", map[string]any{"name": "log-t", "slug": "log-t"})
	v := create(t, s, "/api/ipam/vlans/", map[string]any{"group": g, "vid": 10, "name": "ten", "tags": []map[string]any{{"id": tag}}})
	create(t, s, "/api/ipam/prefixes/", map[string]any{"prefix": "10.9.0.0/24", "scope_type": "dcim.location", "scope_id": loc})
	p3 := create(t, s, "/api/ipam/prefixes/", map[string]any{"prefix": "10.9.3.0/24", "scope_type": "dcim.site", "scope_id": s3})
	since := newest(t, s).ID

	s.Call(t, http.MethodPatch, detailPath(t, "ipam.vlangroup", g), map[string]any{"name": "log-h"}, nil)
	s.Call(t, http.MethodPatch, detailPath(t, "dcim.location", loc), map[string]any{"site": s2}, nil)
	if got := s.Count(t, "ipam.prefix", fmt.Sprintf("site_id=%d", s2), "prefix=10.9.0.0/24"); got != 1 {
		t.Errorf("prefixes of the location's new site: %d, want 1", got)
	}
	want := []string{fmt.Sprintf("ipam.vlangroup %d update log-h", g), fmt.Sprintf("dcim.location %d update log-l", loc)}
	if got := changes(t, s, since, url.Values{}); !slices.Equal(got, want) {
		t.Errorf("a group renamed, a location moved: changes %q,\nwant %q", got, want)
	}

	since = newest(t, s).ID
	s.Call(t, http.MethodDelete, detailPath(t, "extras.tag", tag), nil, nil)
	want = []string{fmt.Sprintf("extras.tag %d delete log-t", tag), fmt.Sprintf("ipam.vlan %d update ten (10)", v)}
	if got := changes(t, s, since, url.Values{}); !slices.Equal(got, want) {
		t.Errorf("a tag deleted: changes %q,\nwant %q", got, want)
	}

	since = newest(t, s).ID
	s.Call(t, http.MethodDelete, detailPath(t, "ipam.vlan", v), nil, nil)
	s.Call(t, http.MethodDelete, detailPath(t, "dcim.site", s3), nil, nil)
	want = []string{fmt.Sprintf("ipam.vlan %d delete ten (10)", v), fmt.Sprintf("ipam.prefix %d delete 10.9.3.0/24", p3),
		fmt.Sprintf("ipam.vlangroup %d delete log-h", g), fmt.Sprintf("dcim.site %d delete log-s3", s3)}
	if got := changes(t, s, since, url.Values{}); !slices.Equal(got, want) {
		t.Errorf("a site deleted: changes %q,\nwant %q", got, want)
	}
}
