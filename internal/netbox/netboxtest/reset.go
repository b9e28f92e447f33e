package netboxtest

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
)

// sweep is one object type reset empties, keeping the objects named keep.
type sweep struct {
	kind string
	keep []string
}

// sweeps lists what tests and ipsync may make, in an order that deletes
// what refers to an object before the object: NetBox refuses (409) to
// delete a VRF, VLAN or RIR still in use.
func sweeps(seed SeedData) []sweep {
	return []sweep{
		{kind: "ipam.ipaddress"},
		{kind: "ipam.iprange"},
		{kind: "ipam.prefix"},
		{kind: "ipam.aggregate"},
		{kind: "ipam.vlan"},
		{kind: "ipam.vlangroup"},
		{kind: "ipam.vrf"},
		{kind: "ipam.asn"},
		{kind: "ipam.asnrange"},
		{kind: "extras.customfield"},
		{kind: "extras.customfieldchoiceset"},
		{kind: "extras.tag", keep: seed.Tags},
		{kind: "dcim.location"},
		{kind: "dcim.site", keep: seed.Sites},
		{kind: "ipam.rir", keep: []string{seed.RIR}},
		{kind: "ipam.role", keep: seed.Roles},
		{kind: "tenancy.tenant", keep: seed.Tenants},
	}
}

// emptiedMessage is the changelog message of the harness's deletes. When
// the newest change NetBox logged carries it, nothing has been made since
// the server was last emptied, and emptying it again is one request
// instead of one per object type.
const emptiedMessage = "netboxtest: emptied between tests"

// deleteBatch bounds one bulk delete: NetBox deletes one object at a time
// inside the request, and a request of thousands would run for minutes.
const deleteBatch = 500

// newestChange is the id of the newest change in NetBox's changelog (0 if
// none) and whether the harness made it while emptying the server.
func (c conn) newestChange() (int, bool, error) {
	var page struct {
		Results []struct {
			ID      int    `json:"id"`
			Message string `json:"message"`
		} `json:"results"`
	}
	if err := c.call(http.MethodGet, "/api/core/object-changes/?ordering=-id&limit=1&fields=id,message", nil, &page); err != nil {
		return 0, false, fmt.Errorf("read the changelog: %w", err)
	}
	if len(page.Results) == 0 {
		return 0, false, nil
	}
	return page.Results[0].ID, page.Results[0].Message == emptiedMessage, nil
}

// createdSince names the object types created after the change with id
// since, as far as one page of the changelog tells; complete is false
// when there were more.
func (c conn) createdSince(since int) (kinds map[string]bool, complete bool, err error) {
	var page struct {
		Next    *string `json:"next"`
		Results []struct {
			Kind string `json:"changed_object_type"`
		} `json:"results"`
	}
	path := fmt.Sprintf("/api/core/object-changes/?id__gt=%d&action=create&limit=1000&fields=changed_object_type", since)
	if err := c.call(http.MethodGet, path, nil, &page); err != nil {
		return nil, false, fmt.Errorf("read the changelog: %w", err)
	}
	kinds = map[string]bool{}
	for _, r := range page.Results {
		kinds[r.Kind] = true
	}
	return kinds, page.Next == nil, nil
}

// empty deletes, with bulk deletes, what tests and ipsync make of the
// types in only (every type when only is nil), and keeps the seed.
func (c conn) empty(seed SeedData, only map[string]bool) error {
	for _, sw := range sweeps(seed) {
		if only != nil && !only[sw.kind] {
			continue
		}
		path, _ := endpoint(sw.kind)
		objs, err := c.list(path + "?fields=id,name,_depth")
		if err != nil {
			return fmt.Errorf("list %s to empty it: %w", sw.kind, err)
		}
		objs = slices.DeleteFunc(objs, func(o map[string]any) bool {
			name, _ := o["name"].(string)
			return slices.Contains(sw.keep, name)
		})
		for _, batch := range deleteBatches(objs) {
			if err := c.call(http.MethodDelete, path, batch, nil); err != nil {
				return fmt.Errorf("empty %s: %w", sw.kind, err)
			}
		}
	}
	return nil
}

// deleteBatches are the bulk delete bodies for objs. Nested objects
// (locations) go deepest first, one depth per request: a parent deleted
// first would take its children with it, unlogged by the harness's
// message.
func deleteBatches(objs []map[string]any) [][]map[string]any {
	depth := func(o map[string]any) float64 { d, _ := o["_depth"].(float64); return d }
	slices.SortStableFunc(objs, func(a, b map[string]any) int { return cmp.Compare(depth(b), depth(a)) })
	var batches [][]map[string]any
	var cur []map[string]any
	for i, o := range objs {
		if len(cur) == deleteBatch || i > 0 && depth(o) != depth(objs[i-1]) {
			batches = append(batches, cur)
			cur = nil
		}
		cur = append(cur, map[string]any{"id": o["id"], "changelog_message": emptiedMessage})
	}
	if len(cur) > 0 {
		batches = append(batches, cur)
	}
	return batches
}
