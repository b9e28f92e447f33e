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
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
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
// reported as clashes. Nautobot names the clash by the field that clashes
// first: a namespace's or VLAN group's name (its serializer checks it
// before the model sees the id), an address's parent and host with the id.
func TestCreateCommittedAfterItsRetryChecked(t *testing.T) {
	servertest.Each(t, createCommittedAfterItsRetryChecked)
}

func createCommittedAfterItsRetryChecked(t *testing.T, srv *servertest.Server) {
	var addrs, nss, groups []resource.Object
	for i := range 20 {
		addrs = append(addrs, &resource.IPAddress{M: meta(), Namespace: "Global", Address: pfx(fmt.Sprintf("10.0.0.%d/24", i+1)), Status: "Active"})
		nss = append(nss, &resource.Namespace{M: meta(), Name: fmt.Sprintf("ns-%d", i)})
		groups = append(groups, &resource.VLANGroup{M: meta(), Name: fmt.Sprintf("group-%d", i)})
	}
	for _, tc := range []struct {
		path string
		ct   string
		objs []resource.Object
	}{
		{"/api/ipam/ip-addresses/", "ipam.ipaddress",
			append([]resource.Object{&resource.Prefix{M: meta(), Namespace: "Global", Prefix: pfx("10.0.0.0/24"), Status: "Active"}}, addrs...)},
		{"/api/ipam/namespaces/", "ipam.namespace", nss},
		{"/api/ipam/vlan-groups/", "ipam.vlangroup", groups},
	} {
		t.Run(tc.path, func(t *testing.T) {
			e := newEnvOn(t, srv, nil, false)
			before := e.srv.Count(t, tc.ct)
			e.sendWith(func(c *httpapi.Config) {
				next := srv.Client().Transport
				if next == nil {
					next = http.DefaultTransport
				}
				c.HTTP = &http.Client{Transport: &lateCommit{next: next, path: tc.path}}
			})
			res, err := e.c.Apply(context.Background(), creates(tc.objs...))
			if err != nil || len(res.Errors) != 0 {
				t.Fatalf("Apply: %v %v", err, res.Errors)
			}
			if res.Written != len(tc.objs) {
				t.Errorf("wrote %d objects, want %d", res.Written, len(tc.objs))
			}
			if n := e.srv.Count(t, tc.ct) - before; n != 20 {
				t.Errorf("%d objects stored at %s, want 20", n, tc.path)
			}
			if srv.Real() {
				// The next case starts from the seed again.
				srv.Reset(t)
			}
		})
	}
}
