package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/clock/clocktest"
)

// answer is what the test server says to one attempt; reset drops the
// connection without an answer.
type answer struct {
	status int
	header map[string]string
	body   string
	reset  bool
}

// serve starts a server that gives the answers in turn, the last one
// for every later attempt, and counts the attempts.
func serve(t *testing.T, answers ...answer) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := answers[min(int(n.Add(1))-1, len(answers)-1)]
		if a.reset {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		for k, v := range a.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(a.status)
		_, _ = w.Write([]byte(a.body))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func newClient(t *testing.T, base string, clk *clocktest.Fake) *Client {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return New(Config{Base: u, Auth: "Token t", Server: "nautobot", MaxRetries: 3, Clock: clk,
		Jitter: func() float64 { return 0.5 }})
}

func TestDoRetries(t *testing.T) {
	ok := answer{status: 200, body: `{"ok": true}`}
	decode := func(b []byte) error {
		var v struct{ OK bool }
		return json.Unmarshal(b, &v)
	}
	tests := []struct {
		name       string
		answers    []answer
		answer500  bool
		retries500 int
		wantStatus int    // 0 when Do must fail
		wantErr    string // part of the error when it fails
		attempts   int64
		waits      []time.Duration
	}{
		{name: "503 then success", answers: []answer{{status: 503}, ok},
			wantStatus: 200, attempts: 2, waits: []time.Duration{500 * time.Millisecond}},
		{name: "garbled 2xx then success", answers: []answer{{status: 200, body: `{"ok": tr`}, ok},
			wantStatus: 200, attempts: 2, waits: []time.Duration{500 * time.Millisecond}},
		{name: "429 waits its Retry-After", answers: []answer{{status: 429, header: map[string]string{"Retry-After": "7"}}, ok},
			wantStatus: 200, attempts: 2, waits: []time.Duration{7 * time.Second}},
		{name: "500 answered after Retries500", answers: []answer{{status: 500, body: `{"error": "x"}`}},
			answer500: true, retries500: 2, wantStatus: 500, attempts: 3, waits: []time.Duration{500 * time.Millisecond, time.Second}},
		{name: "500 answered at once with no Retries500", answers: []answer{{status: 500}},
			answer500: true, wantStatus: 500, attempts: 1},
		{name: "500 retried like other 5xx without Answer500", answers: []answer{{status: 500}},
			wantErr: "giving up after 4 attempts", attempts: 4, waits: []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}},
		{name: "4xx is an answer, not retried", answers: []answer{{status: 400, body: `{"name": ["taken"]}`}},
			wantStatus: 400, attempts: 1},
		{name: "404 is an answer, not retried", answers: []answer{{status: 404}},
			wantStatus: 404, attempts: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, n := serve(t, tt.answers...)
			clk := clocktest.NewInstant(clocktest.Start)
			c := newClient(t, srv.URL, clk)
			var tally Tally
			resp, err := c.Do(context.Background(), Request{Method: http.MethodPost, Path: "/api/x/", Tally: &tally,
				Decode: decode, Answer500: tt.answer500, Retries500: tt.retries500,
				Body: func(context.Context, int, bool) ([]byte, bool, error) { return []byte(`{}`), false, nil }})
			switch {
			case tt.wantStatus == 0 && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Do = %v, want an error with %q", err, tt.wantErr)
			case tt.wantStatus != 0 && err != nil:
				t.Fatalf("Do: %v", err)
			case tt.wantStatus != 0 && resp.Status != tt.wantStatus:
				t.Errorf("status = %d, want %d", resp.Status, tt.wantStatus)
			}
			if got := n.Load(); got != tt.attempts {
				t.Errorf("server saw %d attempts, want %d", got, tt.attempts)
			}
			if got := tally.Writes(); got != tt.attempts || tally.Reads() != 0 {
				t.Errorf("tally = %d writes %d reads, want %d writes", got, tally.Reads(), tt.attempts)
			}
			if got := clk.Waits(); !slices.Equal(got, tt.waits) {
				t.Errorf("waits = %v, want %v", got, tt.waits)
			}
		})
	}
}

func TestDoAPIErrorOnLast5xx(t *testing.T) {
	srv, _ := serve(t, answer{status: 502, body: "bad gateway"})
	c := newClient(t, srv.URL, clocktest.NewInstant(clocktest.Start))
	_, err := c.Do(context.Background(), Request{Method: http.MethodGet, Path: "/api/x/"})
	apiErr, ok := errors.AsType[*APIError](err)
	if !ok || apiErr.Status != 502 || apiErr.Path != "/api/x/" || apiErr.Body != "bad gateway" {
		t.Fatalf("Do = %v, want an *APIError 502 for /api/x/ with its body", err)
	}
}

// TestDoMaybeSent: a create whose attempt was cut off after it was sent
// learns so on its next attempt, and may then find nothing left to send.
func TestDoMaybeSent(t *testing.T) {
	tests := []struct {
		name      string
		first     answer
		skip      bool // the body func skips once maybeSent
		wantErr   error
		wantSeen  []bool
		wantTries int64
	}{
		{"reset", answer{reset: true}, false, nil, []bool{false, true}, 2},
		{"5xx", answer{status: 503}, false, nil, []bool{false, true}, 2},
		{"reset then nothing left", answer{reset: true}, true, ErrSkipped, []bool{false, true}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, n := serve(t, tt.first, answer{status: 201, body: `[]`})
			c := newClient(t, srv.URL, clocktest.NewInstant(clocktest.Start))
			var seen []bool
			_, err := c.Do(context.Background(), Request{Method: http.MethodPost, Path: "/api/x/",
				Body: func(_ context.Context, _ int, maybeSent bool) ([]byte, bool, error) {
					seen = append(seen, maybeSent)
					return []byte(`[]`), tt.skip && maybeSent, nil
				}})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Do = %v, want %v", err, tt.wantErr)
			}
			if !slices.Equal(seen, tt.wantSeen) {
				t.Errorf("maybeSent per attempt = %v, want %v", seen, tt.wantSeen)
			}
			if got := n.Load(); got != tt.wantTries {
				t.Errorf("server saw %d attempts, want %d", got, tt.wantTries)
			}
		})
	}
}

// TestDoPermanent: nothing listening is said at once, naming the setting
// to check, and not retried.
func TestDoPermanent(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	clk := clocktest.NewInstant(clocktest.Start)
	c := newClient(t, "http://"+addr, clk)
	sent := 0
	_, err = c.Do(context.Background(), Request{Method: http.MethodPost, Path: "/api/x/",
		Body: func(context.Context, int, bool) ([]byte, bool, error) { sent++; return []byte(`{}`), false, nil }})
	if err == nil || !strings.Contains(err.Error(), "not retried") || !strings.Contains(err.Error(), "nautobot.url") {
		t.Fatalf("Do = %v, want a not-retried error naming nautobot.url", err)
	}
	if sent != 1 || len(clk.Waits()) != 0 {
		t.Errorf("%d attempts and waits %v, want one attempt and no wait", sent, clk.Waits())
	}
}

// TestDoHeaders: the caller's headers go out with the auth, and a JSON
// Accept unless the caller set one.
func TestDoHeaders(t *testing.T) {
	tests := []struct {
		name       string
		header     http.Header
		wantAccept string
		wantMatch  string
	}{
		{"defaults", nil, "application/json", ""},
		{"version pin", http.Header{"Accept": {"application/json; version=3.2"}}, "application/json; version=3.2", ""},
		{"if-match", http.Header{"If-Match": {`"abc"`}}, "application/json", `"abc"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got http.Header
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = r.Header.Clone()
			}))
			defer srv.Close()
			c := newClient(t, srv.URL, clocktest.NewInstant(clocktest.Start))
			if _, err := c.Do(context.Background(), Request{Method: http.MethodGet, Path: "/api/", Header: tt.header}); err != nil {
				t.Fatal(err)
			}
			if got.Get("Accept") != tt.wantAccept || got.Get("If-Match") != tt.wantMatch || got.Get("Authorization") != "Token t" {
				t.Errorf("headers %v, want Accept %q, If-Match %q, Authorization %q", got, tt.wantAccept, tt.wantMatch, "Token t")
			}
		})
	}
}

// TestClientHeader: the client's own headers go with every request (a
// NetBox branch's), and a request's own header of the same name wins.
func TestClientHeader(t *testing.T) {
	var got []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Clone())
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	c := New(Config{Base: u, Auth: "Token t", Header: http.Header{"X-Netbox-Branch": {"084p1qdu"}, "Accept": {"text/plain"}}})
	for _, h := range []http.Header{nil, {"Accept": {"application/json; version=4.7"}}} {
		if _, err := c.Do(context.Background(), Request{Method: http.MethodPost, Path: "/api/", Header: h}); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 2 {
		t.Fatalf("%d requests, want 2", len(got))
	}
	for i, want := range []string{"text/plain", "application/json; version=4.7"} {
		if got[i].Get("X-NetBox-Branch") != "084p1qdu" || got[i].Get("Accept") != want || got[i].Get("Authorization") != "Token t" {
			t.Errorf("request %d: headers %v, want the branch, Accept %q and the token", i, got[i], want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := clocktest.Start
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"7", 7 * time.Second},
		{" 0 ", 0},
		{"-3", 0},
		{"", 0},
		{"soon", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{"86400", retryAfterMax},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.in, now); got != tt.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
