package netbox

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"testing"

	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// TestChangeRecordsAreFinal pins what the cursor relies on in NetBox,
// unlike Nautobot: a change record, once it can be read, never changes.
// NetBox rewrites a record only within the request that made it (a change
// of an object's tags, its many-to-many field, completes that object's
// record of the request), so the records of a request that changes a
// VLAN's fields and its tags, read after the request, stay as they are
// when later requests change the VLAN again, and the view follows each.
func TestChangeRecordsAreFinal(t *testing.T) {
	e := realEnv(t, nil, false)
	ctx := context.Background()
	g := "pin-net"
	if _, err := e.c.Apply(ctx, creates(&resource.VLANGroup{M: meta(), Name: g, Location: "a11"},
		&resource.VLAN{M: meta(), Group: g, VID: 100, Name: "a", Status: "Active"})); err != nil {
		t.Fatal(err)
	}
	e.call(http.MethodPost, "/api/extras/tags/", map[string]any{"name": "pin", "slug": "pin"}, nil)
	group := e.s.ID(t, "ipam.vlangroup", g)
	vlan := int(e.s.Objects(t, "ipam.vlan", fmt.Sprintf("group_id=%d", group), "vid=100")[0]["id"].(float64))
	tg := e.c.Target(scope.Scope{Kinds: []resource.Kind{resource.KindVLANGroup, resource.KindVLAN}, VLANGroups: []string{g}})
	if _, err := tg.Follow(ctx); err != nil {
		t.Fatal(err)
	}
	records := func() map[int]string {
		var page struct {
			Results []struct {
				ID   int             `json:"id"`
				Data json.RawMessage `json:"postchange_data"`
			} `json:"results"`
		}
		e.call(http.MethodGet, fmt.Sprintf("%s?changed_object_type=ipam.vlan&changed_object_id=%d&fields=id,postchange_data", pathObjectChanges, vlan), nil, &page)
		out := map[int]string{}
		for _, r := range page.Results {
			out[r.ID] = string(r.Data)
		}
		return out
	}
	description := func(step string) string {
		viewState, _, err := tg.Refresh(ctx)
		view := objectsOf(viewState)
		if err != nil {
			t.Fatalf("%s: Refresh: %v", step, err)
		}
		for _, o := range view {
			if v, ok := o.(*resource.VLAN); ok && v.VID == 100 {
				return v.Description
			}
		}
		t.Fatalf("%s: the VLAN left the view", step)
		return ""
	}

	path := fmt.Sprintf("/api/ipam/vlans/%d/", vlan)
	e.call(http.MethodPatch, path, map[string]any{"description": "fields and tags", "tags": []map[string]any{{"name": "pin"}}}, nil)
	if got := description("fields and tags in one request"); got != "fields and tags" {
		t.Errorf("after one request changing fields and tags: description %q", got)
	}
	before := records()
	e.call(http.MethodPatch, path, map[string]any{"description": "again"}, nil)
	if got := description("a later request"); got != "again" {
		t.Errorf("after a later request: description %q, want again", got)
	}
	after := records()
	for id, data := range before {
		if after[id] != data {
			t.Errorf("record %d changed after it was read:\n was %s\n now %s", id, data, after[id])
		}
	}
	if len(after) != len(before)+1 {
		t.Errorf("a later request left %d records of the VLAN, want one more than the %d before: %v", len(after), len(before), maps.Keys(after))
	}
}
