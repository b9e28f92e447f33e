package emulator

import (
	"net/http"
	"testing"
)

func TestAuthAndVersion(t *testing.T) {
	s := NewServer(WithToken("good"), WithReadOnlyToken("ro"))
	defer s.Close()
	tests := []struct {
		name       string
		method     string
		headers    map[string]string
		wantStatus int
		wantBody   string
	}{
		{"no token", http.MethodGet, map[string]string{}, 403, `{"detail": "Authentication credentials were not provided."}`},
		{"bearer is not a token", http.MethodGet, map[string]string{"Authorization": "Bearer good"}, 403, `{"detail": "Authentication credentials were not provided."}`},
		{"invalid token", http.MethodGet, map[string]string{"Authorization": "Token bad"}, 403, `{"detail": "Invalid token"}`},
		{"read-only token writes", http.MethodPost, map[string]string{"Authorization": "Token ro"}, 403, `{"detail": "You do not have permission to perform this action."}`},
		{"unsupported version", http.MethodGet, map[string]string{"Authorization": "Token good", "Accept": "application/json; version=9.9"}, 406,
			`{"detail": "Invalid version \"9.9\" in \"Accept\" header. Supported versions are: 2.0, 2.1, 2.2, 2.3, 2.4, 3.0, 3.1"}`},
		{"good", http.MethodGet, map[string]string{"Authorization": "Token good", "Accept": "application/json; version=2.2"}, 200, ""},
	}
	for _, tt := range tests {
		var body any
		if tt.method == http.MethodPost {
			body = map[string]any{"name": "x"}
		}
		status, raw := callRaw(t, s, tt.method, "/api/ipam/namespaces/", body, tt.headers)
		if status != tt.wantStatus || (tt.wantBody != "" && string(raw) != tt.wantBody) {
			t.Errorf("%s: got %d %s, want %d %s", tt.name, status, raw, tt.wantStatus, tt.wantBody)
		}
	}
}

func TestAPIVersionHeader(t *testing.T) {
	s := NewServer()
	defer s.Close()
	req, _ := http.NewRequest(http.MethodGet, s.URL()+"/api/ipam/namespaces/", nil)
	req.Header.Set("Authorization", "Token "+DefaultToken)
	req.Header.Set("Accept", "application/json; version=2.3")
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("API-Version"); got != "2.3" {
		t.Errorf("API-Version = %q, want 2.3", got)
	}
}
