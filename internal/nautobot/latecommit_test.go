package nautobot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/resource"
)

// lateCommit loses the answer of the first create at path and lets that
// create reach Nautobot only when the retry is sent: the client's check
// for what the lost attempt wrote finds nothing, and then the retry finds
// every id taken, as when a bulk write outlasts the client's timeout.
type lateCommit struct {
	next http.RoundTripper
	path string

	mu      sync.Mutex
	stashed []byte
	done    bool
}

func (l *lateCommit) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodPost || r.URL.Path != l.path {
		return l.next.RoundTrip(r)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done && l.stashed == nil {
		l.stashed, _ = io.ReadAll(r.Body)
		return nil, errors.New("timeout awaiting response headers")
	}
	if !l.done {
		l.done = true
		late := r.Clone(r.Context())
		late.Body = io.NopCloser(bytes.NewReader(l.stashed))
		late.ContentLength = int64(len(l.stashed))
		resp, err := l.next.RoundTrip(late)
		if err != nil {
			return nil, err
		}
		resp.Body.Close()
	}
	return l.next.RoundTrip(r)
}

// TestCreateCommittedAfterItsRetryChecked: objects a lost attempt wrote
// after the retry looked for them are counted as written, once, not
// reported as clashes.
func TestCreateCommittedAfterItsRetryChecked(t *testing.T) {
	e := newEnv(t, nil, false)
	e.sendWith(func(c *httpapi.Config) {
		c.HTTP = &http.Client{Transport: &lateCommit{next: e.srv.Client().Transport, path: "/api/ipam/ip-addresses/"}}
	})
	objs := []resource.Object{&resource.Prefix{M: meta(), Namespace: "Global", Prefix: pfx("10.0.0.0/24"), Status: "Active"}}
	for i := range 20 {
		objs = append(objs, &resource.IPAddress{M: meta(), Namespace: "Global", Address: pfx(fmt.Sprintf("10.0.0.%d/24", i+1)), Status: "Active"})
	}
	res, err := e.c.Apply(context.Background(), creates(objs...))
	if err != nil || len(res.Errors) != 0 {
		t.Fatalf("Apply: %v %v", err, res.Errors)
	}
	if res.Written != len(objs) {
		t.Errorf("wrote %d objects, want %d", res.Written, len(objs))
	}
	if n := e.srv.Count(t, "ipam.ipaddress"); n != 20 {
		t.Errorf("%d IP addresses stored, want 20", n)
	}
}
