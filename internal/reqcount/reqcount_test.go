package reqcount

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func TestRequestsByMethodAndPathPrefix(t *testing.T) {
	var c Counter
	for _, r := range []struct{ method, path string }{
		{"GET", "/api/ipam/vlans/"}, {"GET", "/api/ipam/vlans/"}, {"POST", "/api/ipam/vlans/"},
		{"GET", "/api/ipam/prefixes/"}, {"DELETE", "/api/ipam/vlans/7/"},
	} {
		c.Add(r.method, r.path)
	}
	for _, tt := range []struct {
		method, prefix string
		want           int
	}{
		{"GET", "/api/ipam/vlans/", 2},
		{"get", "/api/ipam/vlans/", 2},
		{"", "/api/ipam/vlans/", 4},
		{"", "/api/", 5},
		{"PATCH", "/api/", 0},
		{"DELETE", "/api/ipam/vlans/7/", 1},
	} {
		if got := c.Requests(tt.method, tt.prefix); got != tt.want {
			t.Errorf("Requests(%q, %q) = %d, want %d", tt.method, tt.prefix, got, tt.want)
		}
	}
	c.Reset()
	if got := c.Requests("", "/"); got != 0 {
		t.Errorf("Requests after Reset = %d, want 0", got)
	}
}

// TestProxyCountsAndForwards: what reaches the upstream is the request as
// sent, and what the client gets is the upstream's answer.
func TestProxyCountsAndForwards(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("ETag", `W/"1"`)
		w.WriteHeader(http.StatusTeapot)
		_, _ = io.WriteString(w, r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("If-Match")+" "+string(body))
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	var c Counter
	px := httptest.NewServer(Proxy(u, &c, t.Logf))
	defer px.Close()

	req, _ := http.NewRequest("PATCH", px.URL+"/api/ipam/vlans/3/?fields=id", strings.NewReader(`{"vid":3}`))
	req.Header.Set("If-Match", `W/"0"`)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `PATCH /api/ipam/vlans/3/?fields=id W/"0" {"vid":3}`; string(got) != want || resp.StatusCode != http.StatusTeapot || resp.Header.Get("ETag") != `W/"1"` {
		t.Errorf("through the proxy: %d %q %q, want 418 %q and the upstream's ETag", resp.StatusCode, resp.Header.Get("ETag"), got, want)
	}
	if n := c.Requests("PATCH", "/api/ipam/vlans/3/"); n != 1 {
		t.Errorf("counted %d PATCH requests, want 1", n)
	}
}

// TestProxyAnswers502WhenUpstreamIsDown: a stopped server is a 502 and a
// log line naming the request, not a hang.
func TestProxyAnswers502WhenUpstreamIsDown(t *testing.T) {
	up := httptest.NewServer(http.NotFoundHandler())
	u, _ := url.Parse(up.URL)
	up.Close()
	logged := make(chan string, 10)
	var c Counter
	px := httptest.NewServer(Proxy(u, &c, func(f string, a ...any) { logged <- f }))
	defer px.Close()
	resp, err := http.Get(px.URL + "/api/status/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || len(logged) != 1 || c.Requests("GET", "/api/status/") != 1 {
		t.Errorf("status %d, %d log lines, %d counted; want 502, 1, 1", resp.StatusCode, len(logged), c.Requests("GET", "/api/status/"))
	}
}
