package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func TestProduct(t *testing.T) {
	tests := []struct {
		body, server, version string
	}{
		{`{"nautobot-version": "3.2.7", "python-version": "3.12.3"}`, "nautobot", "3.2.7"},
		{`{"netbox-version": "4.7.1", "django-version": "5.2"}`, "netbox", "4.7.1"},
		{`{"django-version": "5.2"}`, "", ""},
		{`{"nautobot-version": ""}`, "", ""},
		{`<html>not json</html>`, "", ""},
		// NetBox 4.7 refusing a token, as it words it.
		{`{"detail":"Invalid v2 token"}`, "netbox", ""},
		{`{"detail":"Invalid v1 token"}`, "netbox", ""},
		// Nautobot 3.2, the same.
		{`{"detail":"Invalid token"}`, "", ""},
	}
	for _, tt := range tests {
		if s, v := Product([]byte(tt.body)); s != tt.server || v != tt.version {
			t.Errorf("Product(%s) = %q, %q; want %q, %q", tt.body, s, v, tt.server, tt.version)
		}
	}
}

// TestIdentifyOn404: a client for NetBox whose server answers 404 asks
// once what the server is; a Nautobot is named as such, for every later
// 404 too, and a server that says nothing of itself leaves the 404 be.
func TestIdentifyOn404(t *testing.T) {
	tests := []struct {
		name, status string
		wantErr      string // "" for the 404 itself
	}{
		{"a Nautobot", `{"nautobot-version": "3.2.7"}`, "looks like Nautobot 3.2.7, not NetBox: point netbox.url at a NetBox, or write to it as Nautobot (target: nautobot, and a nautobot section)"},
		{"a NetBox", `{"netbox-version": "4.7.1"}`, ""},
		{"neither", `{}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			statusAsked := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/api/status/" {
					statusAsked++
					_, _ = w.Write([]byte(tt.status))
					return
				}
				http.NotFound(w, r)
			}))
			defer srv.Close()
			u, _ := url.Parse(srv.URL)
			c := New(Config{Base: u, Server: "netbox", Identify: true})
			for range 2 {
				resp, err := c.Do(context.Background(), Request{Method: "GET", Path: "/api/ipam/roles/"})
				switch {
				case tt.wantErr == "" && (err != nil || resp.Status != http.StatusNotFound):
					t.Errorf("Do = %v, %v; want the 404", resp, err)
				case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
					t.Errorf("Do = %v; want an error containing %q", err, tt.wantErr)
				}
			}
			if statusAsked != 1 {
				t.Errorf("/api/status/ asked %d times, want once", statusAsked)
			}
		})
	}
}
