package netboxtest

import (
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

// emptiedMessage is the changelog message that marks a finished sweep:
// the harness creates and deletes a tag with it last. When NetBox's newest
// change is that delete, nothing has been made since, and checking the
// server is one request instead of one per object type. A sweep cut short
// (an interrupted test run) leaves no mark, so the next one is complete.
const emptiedMessage = "netboxtest: emptied between tests"

// markTag is the tag whose deletion marks a finished sweep.
const markTag = "netboxtest-emptied"

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
// types in only (every type when only is nil), keeps the seed, and marks
// the changelog.
func (c conn) empty(seed SeedData, only map[string]bool) error {
	for _, sw := range sweeps(seed) {
		if only != nil && !only[sw.kind] {
			continue
		}
		path, _ := endpoint(sw.kind)
		objs, err := c.list(path + "?fields=id,name")
		if err != nil {
			return fmt.Errorf("list %s to empty it: %w", sw.kind, err)
		}
		var ids []map[string]any
		for _, o := range objs {
			if name, _ := o["name"].(string); !slices.Contains(sw.keep, name) {
				ids = append(ids, map[string]any{"id": o["id"]})
			}
		}
		for lo := 0; lo < len(ids); lo += deleteBatch {
			if err := c.call(http.MethodDelete, path, ids[lo:min(lo+deleteBatch, len(ids))], nil); err != nil {
				return fmt.Errorf("empty %s: %w", sw.kind, err)
			}
		}
	}
	var tag struct {
		ID int `json:"id"`
	}
	if err := c.call(http.MethodPost, "/api/extras/tags/", map[string]any{"name": markTag, "slug": markTag}, &tag); err != nil {
		return fmt.Errorf("mark the server emptied: %w", err)
	}
	if err := c.call(http.MethodDelete, "/api/extras/tags/", []map[string]any{{"id": tag.ID, "changelog_message": emptiedMessage}}, nil); err != nil {
		return fmt.Errorf("mark the server emptied: %w", err)
	}
	return nil
}
