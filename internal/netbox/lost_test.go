package netbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/clock/clocktest"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sot"
)

// loseAnswers sends requests on, and replaces the answer of the first n
// POSTs to path, after NetBox has written them, by a reset connection
// (or, with as500, by an HTTP 500, as a failure after the commit).
type loseAnswers struct {
	next  http.RoundTripper
	path  string
	as500 bool
	n     atomic.Int32
}

func (l *loseAnswers) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(r)
	if err != nil || r.Method != http.MethodPost || r.URL.Path != l.path || l.n.Add(-1) < 0 {
		return resp, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if l.as500 {
		body := `{"error": "failed after the commit", "exception": "RuntimeError"}`
		return &http.Response{StatusCode: http.StatusInternalServerError, Header: http.Header{}, Request: r,
			Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body))}, nil
	}
	return nil, errors.New("connection reset after the request was sent")
}

// TestLostCreateNotDuplicated loses the answer of a bulk create that
// NetBox committed, or has it fail with HTTP 500 after the commit: the
// objects are found by natural key and owner marker and not sent again,
// so none is duplicated, and the ids learnt let later writes refer to
// them.
func TestLostCreateNotDuplicated(t *testing.T) {
	for _, as500 := range []bool{false, true} {
		t.Run(fmt.Sprint("HTTP 500 ", as500), func(t *testing.T) { lostCreateNotDuplicated(t, as500) })
	}
}

func lostCreateNotDuplicated(t *testing.T, as500 bool) {
	e := realEnv(t, nil, false)
	lose := &loseAnswers{next: http.DefaultTransport, path: "/api/ipam/vlans/", as500: as500}
	lose.n.Store(1)
	c, err := New(e.c.cfg, slog.New(slog.DiscardHandler), sot.WithHTTPClient(&http.Client{Transport: lose}),
		sot.WithClock(clocktest.NewInstant(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	objs := []resource.Object{&resource.VLANGroup{M: meta(), Name: "lost-net"}}
	for i := range 5 {
		objs = append(objs, &resource.VLAN{M: meta(), Group: "lost-net", VID: uint16(10 + i), Name: fmt.Sprint("v", i), Status: "Active"})
	}
	objs = append(objs, &resource.Prefix{M: meta(), Namespace: GlobalNamespace, Prefix: pfx("10.5.0.0/24"), Type: resource.PrefixNetwork,
		Status: "Active", VLAN: "lost-net/12"})
	res, err := c.Apply(ctx, creates(objs...))
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if lose.n.Load() != 0 {
		t.Fatal("no answer was lost")
	}
	if res.Written != len(objs) {
		t.Errorf("Apply wrote %d objects, want %d", res.Written, len(objs))
	}
	if n := e.s.Requests("POST", "/api/ipam/vlans/"); n != 1 {
		t.Errorf("the VLANs were posted %d times, want once", n)
	}
	if n := e.s.Count(t, "ipam.vlan"); n != 5 {
		t.Errorf("netbox holds %d VLANs, want 5", n)
	}
	got, err := c.List(ctx, scope.Static(owner))
	if err != nil {
		t.Fatal(err)
	}
	sameAs(t, objs, got)
}
