package emulator

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// call sends one request with the default token and API version 2.2 and
// returns the status and decoded body.
func call(t *testing.T, s *Server, method, path string, body any) (int, any) {
	t.Helper()
	status, raw := callRaw(t, s, method, path, body, map[string]string{
		"Authorization": "Token " + DefaultToken, "Accept": "application/json; version=2.2"})
	var v any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s %s: body is not JSON: %v: %s", method, path, err, raw)
		}
	}
	return status, v
}

func callRaw(t *testing.T, s *Server, method, path string, body any, headers map[string]string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.URL()+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return resp.StatusCode, raw
}

// mustCall is call that fails the test unless the status is want.
func mustCall(t *testing.T, s *Server, want int, method, path string, body any) any {
	t.Helper()
	status, v := call(t, s, method, path, body)
	if status != want {
		t.Fatalf("%s %s = %d %v, want %d", method, path, status, v, want)
	}
	return v
}

func jsonString(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }

func idOf(v any) string { s, _ := obj(v)["id"].(string); return s }

// newSeeded starts a server with one location, a role, a tenant and a
// namespace "site-a".
func newSeeded(t *testing.T, opts ...Option) *Server {
	t.Helper()
	s := NewServer(opts...)
	t.Cleanup(s.Close)
	if err := s.Seed(SeedData{Locations: []string{"a11"}, Roles: []string{"tenant-net"}, Tenants: []string{"acme"},
		Tags: []string{"blue"}, Namespaces: []string{"site-a"}}); err != nil {
		t.Fatal(err)
	}
	return s
}
