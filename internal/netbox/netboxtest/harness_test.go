package netboxtest

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
)

func TestAuthorization(t *testing.T) {
	for _, tt := range []struct{ token, want string }{
		{"nbt_abcdefghijkl.secret", "Bearer nbt_abcdefghijkl.secret"},
		{"0123456789abcdef0123456789abcdef01234567", "Token 0123456789abcdef0123456789abcdef01234567"},
	} {
		if got := Authorization(tt.token); got != tt.want {
			t.Errorf("Authorization(%q) = %q, want %q", tt.token, got, tt.want)
		}
	}
}

// TestConnectNeedsBothVariables: a URL without a token (or the reverse) is
// the same as no server, which New turns into a skip naming both variables.
func TestConnectNeedsBothVariables(t *testing.T) {
	for _, tt := range []struct{ url, token string }{
		{"", ""}, {"http://127.0.0.1:1", ""}, {"", "nbt_x.y"},
	} {
		if _, err := connect(tt.url, tt.token); !errors.Is(err, errNotNamed) {
			t.Errorf("connect(%q, %q) = %v, want errNotNamed", tt.url, tt.token, err)
		}
	}
	if _, err := connect("http://127.0.0.1:1", "nbt_x.y"); err == nil || errors.Is(err, errNotNamed) {
		t.Errorf("connect to a closed port = %v, want a connection error", err)
	}
}

// TestNewGivesACleanSeededServer: every test starts with the seed and
// nothing a previous test made, and counts only its own requests through
// the proxy, not what the harness reads.
func TestNewGivesACleanSeededServer(t *testing.T) {
	seed := Seed()
	for round := range 2 {
		t.Run(fmt.Sprintf("test %d", round+1), func(t *testing.T) {
			s := New(t)
			for kind, names := range map[string][]string{
				"dcim.site": seed.Sites, "ipam.role": seed.Roles, "tenancy.tenant": seed.Tenants,
				"extras.tag": seed.Tags, "ipam.rir": {seed.RIR},
			} {
				if got := s.Count(t, kind); got != len(names) {
					t.Errorf("round %d: %d %s, want the %d seeded", round, got, kind, len(names))
				}
				for _, n := range names {
					s.ID(t, kind, n)
				}
			}
			for _, kind := range []string{"ipam.vrf", "ipam.vlangroup", "ipam.vlan", "ipam.prefix", "ipam.ipaddress", "ipam.asn", "extras.customfield", "dcim.location"} {
				if n := s.Count(t, kind); n != 0 {
					t.Errorf("round %d: %d %s left by an earlier test", round, n, kind)
				}
			}
			sent := leaveBehind(t, s)
			if n := s.Requests("", "/api/"); n != sent {
				t.Errorf("%d requests counted, want the %d the test sent", n, sent)
			}
			s.ResetCounts()
			s.Do(t, http.MethodGet, "/api/ipam/vrfs/?limit=1", nil, nil)
			if n := s.Requests(http.MethodGet, "/api/ipam/vrfs/"); n != 1 {
				t.Errorf("%d GET requests counted after ResetCounts, want 1", n)
			}
		})
	}
}

// leaveBehind creates one object of every kind the harness must delete,
// each referring to those before it, so that only deleting in dependency
// order succeeds; it returns how many requests it sent.
func leaveBehind(t *testing.T, s *Server) int {
	t.Helper()
	ids := map[string]any{}
	steps := []struct {
		key, path string
		body      map[string]any
	}{
		{"tag", "/api/extras/tags/", map[string]any{"name": "managed-by-ipsync", "slug": "managed-by-ipsync"}},
		{"choices", "/api/extras/custom-field-choice-sets/", map[string]any{"name": "owners", "extra_choices": [][]string{{"a", "A"}}}},
		{"cf", "/api/extras/custom-fields/", map[string]any{"name": "ipsync_owner", "type": "select", "choice_set": "choices", "object_types": []string{"ipam.vlan", "ipam.prefix"}}},
		{"site", "/api/dcim/sites/", map[string]any{"name": "left-site", "slug": "left-site"}},
		{"location", "/api/dcim/locations/", map[string]any{"name": "row1", "slug": "row1", "site": "site"}},
		{"child", "/api/dcim/locations/", map[string]any{"name": "rack1", "slug": "rack1", "site": "site", "parent": "location"}},
		{"rir", "/api/ipam/rirs/", map[string]any{"name": "ripe", "slug": "ripe"}},
		{"role", "/api/ipam/roles/", map[string]any{"name": "left-role", "slug": "left-role"}},
		{"tenant", "/api/tenancy/tenants/", map[string]any{"name": "left-tenant", "slug": "left-tenant"}},
		{"vrf", "/api/ipam/vrfs/", map[string]any{"name": "a11", "tenant": "tenant"}},
		{"group", "/api/ipam/vlan-groups/", map[string]any{"name": "a11-12-network", "slug": "a11-12-network", "scope_type": "dcim.location", "scope_id": "location"}},
		{"vlan", "/api/ipam/vlans/", map[string]any{"vid": 100, "name": "pxe", "group": "group", "role": "role", "tags": []map[string]any{{"name": "managed-by-ipsync"}}}},
		{"aggregate", "/api/ipam/aggregates/", map[string]any{"prefix": "10.0.0.0/8", "rir": "rir"}},
		{"prefix", "/api/ipam/prefixes/", map[string]any{"prefix": "10.11.0.0/24", "vrf": "vrf", "vlan": "vlan", "scope_type": "dcim.site", "scope_id": "site", "custom_fields": map[string]any{"ipsync_owner": "a"}}},
		{"range", "/api/ipam/ip-ranges/", map[string]any{"start_address": "10.11.0.10/24", "end_address": "10.11.0.20/24", "vrf": "vrf"}},
		{"ip", "/api/ipam/ip-addresses/", map[string]any{"address": "10.11.0.1/24", "vrf": "vrf", "tenant": "tenant"}},
		{"asnrange", "/api/ipam/asn-ranges/", map[string]any{"name": "left", "slug": "left", "rir": "rir", "start": 65000, "end": 65100}},
		{"asn", "/api/ipam/asns/", map[string]any{"asn": 65011, "rir": "rir", "tenant": "tenant"}},
	}
	for _, st := range steps {
		body := map[string]any{}
		for k, v := range st.body {
			if ref, ok := v.(string); ok && ids[ref] != nil && k != "name" && k != "slug" {
				v = ids[ref]
			}
			body[k] = v
		}
		var made struct {
			ID any `json:"id"`
		}
		s.Call(t, http.MethodPost, st.path, body, &made)
		ids[st.key] = made.ID
	}
	return len(steps)
}
