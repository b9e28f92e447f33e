package nautobot

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/sot"

	"github.com/ipsync/ipsync/internal/nautobot/emulator"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

func TestParseServerVersion(t *testing.T) {
	tests := []struct {
		in   string
		want serverVersion
		ok   bool
	}{
		{"3.2.7", serverVersion{3, 2, 7}, true},
		{"2.4.44", serverVersion{2, 4, 44}, true},
		{"3.1", serverVersion{3, 1, 0}, true},
		{"3.0.0b1", serverVersion{3, 0, 0}, true},
		{"3", serverVersion{}, false},
		{"v3.2.7", serverVersion{}, false},
		{"", serverVersion{}, false},
	}
	for _, tt := range tests {
		got, err := parseServerVersion(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseServerVersion(%q) = %v, %v; want %v (ok %v)", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// TestServerVersion: the client reads Nautobot's version when it
// connects, refuses one older than it supports, naming the minimum, and
// pins the server's own API version unless configured otherwise.
func TestServerVersion(t *testing.T) {
	tests := []struct {
		server, pin string
		wantAPI     string
		wantErr     string
	}{
		{"2.3", "", "", "ipsync needs nautobot 2.4.0 or later"},
		{"2.4", "", "2.4", ""},
		{"3.1", "", "3.1", ""},
		{"3.1", "2.2", "2.2", ""},
		{"2.4", "3.1", "", "speaks at most 2.4"},
	}
	for _, tt := range tests {
		t.Run(tt.server+" pinned "+tt.pin, func(t *testing.T) {
			e := newEnv(t, func(c *Config) { c.APIVersion = tt.pin }, true, emulator.WithVersion(tt.server))
			spy := &acceptSpy{next: e.srv.Client().Transport}
			e.sendWith(func(c *httpapi.Config) { c.HTTP = &http.Client{Transport: spy} })
			_, err := e.c.List(context.Background(), scope.Scope{Kinds: []resource.Kind{resource.KindNamespace}})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("List = %v, want an error with %q", err, tt.wantErr)
				}
				if n := len(spy.accepts); n != 1 {
					t.Errorf("%d requests sent, want only the status read", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for path, accept := range spy.accepts {
				want := "application/json; version=" + tt.wantAPI
				if path == "/api/status/" {
					want = "application/json"
				}
				if accept != want {
					t.Errorf("%s sent with Accept %q, want %q", path, accept, want)
				}
			}
		})
	}
}

// acceptSpy records the Accept header and the answer's API-Version of
// the last request to each path.
type acceptSpy struct {
	next http.RoundTripper

	mu          sync.Mutex
	accepts     map[string]string
	apiVersions map[string]string
}

func (s *acceptSpy) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.next.RoundTrip(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.accepts == nil {
		s.accepts, s.apiVersions = map[string]string{}, map[string]string{}
	}
	s.accepts[r.URL.Path] = r.Header.Get("Accept")
	if err == nil {
		s.apiVersions[r.URL.Path] = resp.Header.Get("API-Version")
	}
	return resp, err
}

// TestRealServerVersion: against real servers, the client finds the
// version and pins the API version each line speaks, which the server
// confirms in its answers' API-Version.
func TestRealServerVersion(t *testing.T) {
	servertest.EachReal(t, func(t *testing.T, srv *servertest.Server) {
		u, token := srv.URL(), srv.Token()
		spy := &acceptSpy{next: http.DefaultTransport}
		c, err := New(Config{Settings: sot.Settings{URL: u, Token: token}}, nil, sot.WithHTTPClient(&http.Client{Transport: spy}))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Names(context.Background()); err != nil {
			t.Fatal(err)
		}
		version, api, err := c.ServerVersion(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		// The subtest is named by the version the server reports itself.
		if want := strings.TrimPrefix(srv.Name, "nautobot-"); version != want || !strings.HasPrefix(version, api+".") {
			t.Errorf("version %s, api %s; want %s and its major.minor", version, api, want)
		}
		for path, got := range spy.apiVersions {
			if path != "/api/status/" && got != api {
				t.Errorf("%s answered with API-Version %q, want %q", path, got, api)
			}
		}
	})
}
