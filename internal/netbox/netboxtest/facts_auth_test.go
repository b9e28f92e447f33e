package netboxtest

import (
	"net/http"
	"strings"
	"testing"
)

// token creates an API token of the harness's user and deletes it when t
// ends; it returns the token as a client sends it.
func token(t *testing.T, s *Server, body map[string]any) string {
	t.Helper()
	var me struct {
		Results []struct {
			ID int `json:"id"`
		} `json:"results"`
	}
	s.Call(t, http.MethodGet, "/api/users/users/?username=admin&fields=id", nil, &me)
	if len(me.Results) != 1 {
		t.Fatalf("no user admin (scripts/netbox-up.sh seeds it)")
	}
	body["user"] = me.Results[0].ID
	var made struct {
		ID      int     `json:"id"`
		Version int     `json:"version"`
		Key     *string `json:"key"`
		Token   string  `json:"token"`
	}
	s.Call(t, http.MethodPost, "/api/users/tokens/", body, &made)
	t.Cleanup(func() {
		if err := s.CallErr(http.MethodDelete, detailPath(t, "users.token", made.ID), nil, nil); err != nil {
			t.Errorf("delete the test's token: %v", err)
		}
	})
	if made.Version == 1 {
		return made.Token
	}
	// A v2 token is answered as its key and its secret apart.
	if made.Key == nil || strings.Contains(made.Token, ".") {
		t.Fatalf("v2 token answered as key %v, token %q", made.Key, made.Token)
	}
	return "nbt_" + *made.Key + "." + made.Token
}

// TestFactTokens pins API authentication in 4.7: the token decides its
// version ("nbt_<key>.<secret>" is v2, anything else v1), not the keyword,
// so "Bearer" and "Token" each accept both; a wrong or malformed token is
// 403, not 401, with a detail saying which version it was taken for; a
// token without write permission reads but cannot write (403).
func TestFactTokens(t *testing.T) {
	s := New(t)
	v1 := token(t, s, map[string]any{"version": 1})
	v2 := token(t, s, map[string]any{"version": 2})
	readOnly := token(t, s, map[string]any{"version": 2, "write_enabled": false})
	for _, tt := range []struct {
		name   string
		method string
		auth   string
		status int
		detail string
	}{
		{"v2 as Bearer", http.MethodGet, "Bearer " + v2, 200, ""},
		{"v2 as Token", http.MethodGet, "Token " + v2, 200, ""},
		{"v1 as Token", http.MethodGet, "Token " + v1, 200, ""},
		{"v1 as Bearer", http.MethodGet, "Bearer " + v1, 200, ""},
		{"v1 writes", http.MethodPost, "Token " + v1, 201, ""},
		{"v2 with a wrong secret", http.MethodGet, "Bearer " + v2[:len(v2)-1] + "x", 403, "Invalid v2 token"},
		{"v1 unknown", http.MethodGet, "Token 0123456789abcdef0123456789abcdef01234567", 403, "Invalid v1 token"},
		{"v2 without its key", http.MethodGet, "Bearer nbt_nokey", 403, "Could not parse key from v2 token"},
		{"none", http.MethodGet, "", 403, "Authentication credentials were not provided."},
		{"read-only token reads", http.MethodGet, "Bearer " + readOnly, 200, ""},
		{"read-only token writes", http.MethodPost, "Bearer " + readOnly, 403, ""},
	} {
		header := http.Header{"Authorization": {tt.auth}}
		var body any
		if tt.method == http.MethodPost {
			body = map[string]any{"name": "vrf-" + strings.ReplaceAll(tt.name, " ", "-")}
		}
		r := s.Do(t, tt.method, "/api/ipam/vrfs/?limit=1", body, header)
		if r.Status != tt.status || !strings.Contains(string(r.Body), tt.detail) {
			t.Errorf("%s: %d %s, want %d %q", tt.name, r.Status, r.Body, tt.status, tt.detail)
		}
	}
}
