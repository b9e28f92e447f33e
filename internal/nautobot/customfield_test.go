package nautobot

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"

	"github.com/ipsync/ipsync/internal/resource"
)

// decoy is a custom field that looks like ipsync's (same label and
// type) under another key: bootstrap must leave it alone.
func decoy(key string) map[string]any {
	return map[string]any{"key": key, "label": "ipsync owner", "type": "text", "content_types": []string{"ipam.vlan"}}
}

// TestBootstrapFindsCustomFieldsByKey: custom fields are found by
// listing them and matching the key, never with a key filter (every
// Nautobot refuses it), and bootstrap touches no custom field it did not
// find by its key; apply's preflight reads them the same way.
func TestBootstrapFindsCustomFieldsByKey(t *testing.T) {
	tests := []struct {
		name   string
		before []map[string]any // custom fields that exist first
		want   []string         // what bootstrap says it did
	}{
		{"none exist", nil, []string{`tag "managed-by-ipsync"`, `custom field "ipsync_owner"`, `custom field "vni"`}},
		{"a look-alike under another key", []map[string]any{decoy("ipsync_owner_old")},
			[]string{`tag "managed-by-ipsync"`, `custom field "ipsync_owner"`, `custom field "vni"`}},
		{"ours with too few content types, beside a look-alike", []map[string]any{decoy("ipsync_owner_old"),
			{"key": "ipsync_owner", "label": "ipsync owner 2", "type": "text", "filter_logic": "exact", "content_types": []string{"ipam.vlan"}}},
			[]string{`tag "managed-by-ipsync"`,
				`content types ipam.namespace, ipam.vlangroup, ipam.prefix, ipam.ipaddress, nautobot_bgp_models.autonomoussystem of custom field "ipsync_owner"`,
				`custom field "vni"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil, true)
			ctx := context.Background()
			ids := map[string]string{}
			for _, cf := range tt.before {
				var out struct {
					ID string `json:"id"`
				}
				if _, err := e.c.Call(ctx, http.MethodPost, pathCustomFields, nil, cf, &out); err != nil {
					t.Fatal(err)
				}
				ids[cf["key"].(string)] = out.ID
			}
			spy := intercept(e, strictCustomFields)
			got, err := e.c.Bootstrap(ctx)
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("Bootstrap = %q, %v; want %q", got, err, tt.want)
			}
			if again, err := e.c.Bootstrap(ctx); err != nil || len(again) != 0 {
				t.Errorf("second Bootstrap = %q, %v; want nothing done", again, err)
			}
			if id := ids["ipsync_owner_old"]; id != "" {
				if w := spy.requests("PATCH " + pathCustomFields + id); len(w) != 0 {
					t.Errorf("bootstrap wrote the look-alike custom field: %q", w)
				}
				for _, cf := range e.srv.Objects(t, "extras.customfield") {
					if cf["key"] == "ipsync_owner_old" && len(cf["content_types"].([]any)) != 1 {
						t.Errorf("look-alike's content types = %v, want [ipam.vlan]", cf["content_types"])
					}
				}
			}
			if _, err := e.c.Apply(ctx, creates(&resource.Namespace{M: meta(), Name: "n"})); err != nil {
				t.Errorf("Apply after Bootstrap: %v", err)
			}
			if q := spy.requests("GET " + pathCustomFields + "?"); slices.ContainsFunc(q, func(s string) bool { return strings.Contains(s, "key=") }) {
				t.Errorf("custom fields read with a key filter: %q", q)
			}
		})
	}
}

// TestRealBootstrapFindsCustomFieldsByKey runs bootstrap against real
// servers with a look-alike custom field beside ipsync's own, and with
// ipsync's own narrowed by hand: bootstrap extends its own and leaves
// the look-alike as it was.
func TestRealBootstrapFindsCustomFieldsByKey(t *testing.T) {
	servertest.EachReal(t, func(t *testing.T, srv *servertest.Server) {
		e := newRealEnv(t, srv, nil)
		ctx := context.Background()
		if got, err := e.c.BootstrapPlan(ctx); err != nil || len(got) != 0 {
			t.Fatalf("BootstrapPlan after Bootstrap = %q, %v; want nothing", got, err)
		}
		look := decoy(e.c.cfg.OwnerField + "_old")
		look["label"] = "ipsync owner " + e.uniq
		lookID := e.create(pathCustomFields, look)
		var own string
		for _, cf := range e.stored(pathCustomFields, nil) {
			if cf["key"] == e.c.cfg.OwnerField {
				own = cf["id"].(string)
			}
		}
		if _, err := e.c.Call(ctx, http.MethodPatch, pathCustomFields+own+"/", nil, map[string]any{"content_types": []string{"ipam.vlan"}}, nil); err != nil {
			t.Fatal(err)
		}
		got, err := e.c.Bootstrap(ctx)
		if err != nil || len(got) != 1 || !strings.HasPrefix(got[0], "content types ") || !strings.HasSuffix(got[0], "of custom field \""+e.c.cfg.OwnerField+"\"") {
			t.Fatalf("Bootstrap after narrowing = %q, %v; want the owner field extended", got, err)
		}
		for _, cf := range e.stored(pathCustomFields, url.Values{"id": {lookID, own}}) {
			cts := cf["content_types"].([]any)
			switch cf["id"] {
			case lookID:
				if len(cts) != 1 || cts[0] != "ipam.vlan" {
					t.Errorf("look-alike's content types = %v, want [ipam.vlan]", cts)
				}
			case own:
				if len(cts) < 5 {
					t.Errorf("owner field's content types = %v, want every kind ipsync writes", cts)
				}
			}
		}
		if _, err := e.c.Apply(ctx, creates(&resource.Namespace{M: meta(), Name: e.name("ns")})); err != nil {
			t.Errorf("Apply after Bootstrap: %v", err)
		}
	})
}
