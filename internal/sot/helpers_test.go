package sot

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/ipsync/ipsync/internal/clock/clocktest"
	"github.com/ipsync/ipsync/internal/httpapi"
)

// obj is a wire object of the fake servers, numbered like NetBox's.
type obj struct {
	ID int `json:"id"`
}

func (o *obj) ObjectID() int { return o.ID }

func ids(objs []obj) []int {
	out := []int{}
	for _, o := range objs {
		out = append(out, o.ID)
	}
	return out
}

// progressLog records what a read reports, in order.
type progressLog struct {
	mu    sync.Mutex
	calls []string
}

func (p *progressLog) Expect(label string, total int) {
	p.add(fmt.Sprintf("expect %s %d", label, total))
}
func (p *progressLog) Add(label string, n int) { p.add(fmt.Sprintf("add %s %d", label, n)) }
func (p *progressLog) add(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, s)
}

// client is an httpapi client of a per-test server; retries wait on a
// clock that does not sleep.
func client(t *testing.T, h http.Handler, retries int) (*httpapi.Client, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	base, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return httpapi.New(httpapi.Config{Base: base, HTTP: srv.Client(), Server: "test", MaxRetries: retries,
		Clock: clocktest.NewInstant(clocktest.Start)}), srv
}

// pager is a Pager of a per-test server answering each request with
// page(query), recording the queries it was asked.
func pager(t *testing.T, size int, page func(q url.Values) (status int, body any)) (Pager, *progressLog, *[]url.Values) {
	t.Helper()
	var mu sync.Mutex
	var asked []url.Values
	c, _ := client(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Query())
		mu.Unlock()
		status, body := page(r.URL.Query())
		writeJSON(w, status, body)
	}), 0)
	p := &progressLog{}
	return Pager{Do: c.Do, PageSize: size, Progress: p, Server: "test"}, p, &asked
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if s, ok := body.(string); ok {
		fmt.Fprint(w, s)
		return
	}
	if err := jsonEncode(w, body); err != nil {
		panic(err)
	}
}

var bg = context.Background()

func jsonEncode(w http.ResponseWriter, v any) error { return json.NewEncoder(w).Encode(v) }
