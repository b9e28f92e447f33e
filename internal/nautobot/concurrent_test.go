package nautobot

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/nautobot/emulator/emulatortest"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sot"
)

// inFlight counts the requests of one method and path under way at once.
type inFlight struct {
	next         http.RoundTripper
	method, path string

	mu       sync.Mutex
	now, max int
}

func (f *inFlight) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != f.method || r.URL.Path != f.path {
		return f.next.RoundTrip(r)
	}
	f.mu.Lock()
	f.now++
	f.max = max(f.max, f.now)
	f.mu.Unlock()
	defer func() { f.mu.Lock(); f.now--; f.mu.Unlock() }()
	return f.next.RoundTrip(r)
}

// TestBulkWritesAtOnce: batches of IP addresses and VLANs go to Nautobot
// several at a time, prefixes' one at a time (their creates re-parent
// each other).
func TestBulkWritesAtOnce(t *testing.T) {
	tests := []struct {
		path string
		want int // most requests under way at once
	}{
		{"/api/ipam/ip-addresses/", 4},
		{"/api/ipam/vlans/", 4},
		{"/api/ipam/prefixes/", 1},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			srv := servertest.Emulator(t)
			spy := &inFlight{next: srv.Client().Transport, method: http.MethodPost, path: tt.path}
			c, err := New(Config{Settings: sot.Settings{URL: srv.URL(), Token: srv.Token(), BatchSize: 10, Concurrency: 4}}, slog.New(slog.DiscardHandler),
				sot.WithHTTPClient(&http.Client{Transport: spy}))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Bootstrap(context.Background()); err != nil {
				t.Fatal(err)
			}
			// Each create waits, so batches sent together overlap.
			srv.Emulator().Inject(emulatortest.Fault{Method: http.MethodPost, PathPrefix: tt.path, Latency: 100 * time.Millisecond, Times: 8})
			objs := []resource.Object{&resource.VLANGroup{M: meta(), Name: "g"},
				&resource.Prefix{M: meta(), Namespace: "Global", Prefix: pfx("10.0.0.0/16"), Status: "Active"}}
			for i := range 80 {
				objs = append(objs,
					&resource.VLAN{M: meta(), Group: "g", VID: uint16(i + 1), Name: fmt.Sprintf("v%d", i), Status: "Active"},
					&resource.Prefix{M: meta(), Namespace: "Global", Prefix: pfx(fmt.Sprintf("10.0.%d.0/24", i)), Status: "Active"},
					&resource.IPAddress{M: meta(), Namespace: "Global", Address: pfx(fmt.Sprintf("10.0.%d.1/24", i)), Status: "Active"})
			}
			res, err := c.Apply(context.Background(), creates(objs...))
			if err != nil || res.Written != len(objs) {
				t.Fatalf("Apply: wrote %d of %d: %v", res.Written, len(objs), err)
			}
			if spy.max != tt.want {
				t.Errorf("at most %d POST %s at once, want %d", spy.max, tt.path, tt.want)
			}
		})
	}
}
