package nautobot

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/nautobot/emulator/emulatortest"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// seedVLANs writes n VLANs in group g through Apply.
func seedVLANs(t *testing.T, e *env, g string, n int) []resource.Object {
	t.Helper()
	objs := []resource.Object{&resource.VLANGroup{M: meta(), Name: g}}
	for i := range n {
		objs = append(objs, &resource.VLAN{M: meta(), Group: g, VID: uint16(i + 1), Name: fmt.Sprintf("v%d", i+1), Status: "Active"})
	}
	if _, err := e.c.Apply(context.Background(), creates(objs...)); err != nil {
		t.Fatal(err)
	}
	e.srv.ResetCounts()
	return objs
}

func TestListFaults(t *testing.T) {
	vlans := "/api/ipam/vlans/"
	tests := []struct {
		name    string
		fault   emulatortest.Fault
		wantErr string // "" for success after retries
		waits   int    // retries the clock saw; -1 when the transport may absorb them
	}{
		{"5xx burst is retried", emulatortest.Fault{PathPrefix: vlans, Times: 3, Status: 503}, "", 3},
		{"5xx without end gives up", emulatortest.Fault{PathPrefix: vlans, Status: 502}, "giving up after 6 attempts", 5},
		{"429 waits its Retry-After", emulatortest.Fault{PathPrefix: vlans, Times: 1, Status: 429, RetryAfter: 7}, "", 1},
		{"reset is retried", emulatortest.Fault{PathPrefix: vlans, Times: 3, Reset: emulatortest.ResetBeforeHandling}, "", -1},
		{"truncated page is retried", emulatortest.Fault{PathPrefix: vlans, Times: 1, Truncate: true}, "", 1},
		{"always truncated is an error", emulatortest.Fault{PathPrefix: vlans, Truncate: true}, "giving up", 5},
		{"next ends early", emulatortest.Fault{PathPrefix: vlans, Times: 1, EndEarly: true}, "short read: got 10 of 25", 0},
		{"count changes between pages", emulatortest.Fault{PathPrefix: vlans, Times: 1, CountDelta: 1}, "count changed from 26 to 25", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, func(c *Config) { c.PageSize = 10 }, false)
			seedVLANs(t, e, "g", 25)
			e.srv.Emulator().Inject(tt.fault)
			got, err := e.c.List(context.Background(), scope.Scope{Kinds: []resource.Kind{resource.KindVLAN}})
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("List: %v", err)
			case tt.wantErr == "" && len(got) != 25:
				t.Errorf("List returned %d VLANs, want 25", len(got))
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("List error = %v, want one containing %q", err, tt.wantErr)
			case tt.wantErr != "" && got != nil:
				t.Errorf("List returned %d objects with its error, want none", len(got))
			}
			if w := e.clock.Waits(); tt.waits >= 0 && len(w) != tt.waits {
				t.Errorf("clock waited %v, want %d waits", w, tt.waits)
			}
			if tt.fault.Status == 429 {
				if w := e.clock.Waits(); len(w) != 1 || w[0] != 7*time.Second {
					t.Errorf("waits after 429 = %v, want exactly the 7s of Retry-After", w)
				}
			}
		})
	}
}

func TestBackoffGrows(t *testing.T) {
	e := newEnv(t, nil, false)
	e.sendWith(func(c *httpapi.Config) { c.Jitter = func() float64 { return 0.5 } }) // the centre: no jitter
	e.srv.Emulator().Inject(emulatortest.Fault{PathPrefix: "/api/ipam/vlans/", Times: 4, Status: 500})
	if _, err := e.c.List(context.Background(), scope.Scope{Kinds: []resource.Kind{resource.KindVLAN}}); err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}
	if got := e.clock.Waits(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("waits = %v, want %v", got, want)
	}
}

func TestAttemptTimeoutIsRetried(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.Timeout = 50 * time.Millisecond }, false)
	e.srv.Emulator().Inject(emulatortest.Fault{PathPrefix: "/api/ipam/vlans/", Times: 1, Latency: 2 * time.Second})
	if _, err := e.c.List(context.Background(), scope.Scope{Kinds: []resource.Kind{resource.KindVLAN}}); err != nil {
		t.Fatalf("List after one slow answer: %v", err)
	}
	if n := e.srv.Requests("GET", "/api/ipam/vlans/"); n != 2 {
		t.Errorf("%d VLAN reads, want 2 (one timed out)", n)
	}
}

// TestResetDuringBulkCreate drops the connection of a bulk create after
// Nautobot committed it: the retry must find the objects and not create
// them again.
func TestResetDuringBulkCreate(t *testing.T) {
	for _, reset := range []emulatortest.Reset{emulatortest.ResetAfterHandling, emulatortest.ResetBeforeHandling} {
		t.Run(fmt.Sprint(reset), func(t *testing.T) {
			// One batch at a time, so that the fault hits the batch of 250.
			e := newEnv(t, func(c *Config) { c.Concurrency = 1 }, false)
			objs := []resource.Object{&resource.VLANGroup{M: meta(), Name: "g"}}
			for i := range 300 {
				objs = append(objs, &resource.VLAN{M: meta(), Group: "g", VID: uint16(i + 1), Name: fmt.Sprintf("v%d", i+1), Status: "Active"})
			}
			e.srv.Emulator().Inject(emulatortest.Fault{Method: "POST", PathPrefix: "/api/ipam/vlans/", Times: 1, Reset: reset})
			res, err := e.c.Apply(context.Background(), creates(objs...))
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if n := e.srv.Count(t, "ipam.vlan"); n != 300 {
				t.Errorf("%d VLANs stored, want 300", n)
			}
			if got := res.Counts[resource.KindVLAN]; got[plan.Create] != 300 {
				t.Errorf("Counts = %v, want 300 VLAN creates", res.Counts)
			}
			if n := e.srv.Requests("GET", "/api/ipam/vlans/"); n != 3 {
				t.Errorf("%d VLAN reads, want 3: the lost batch of 250 is checked in chunks of 100", n)
			}
		})
	}
}

func TestNoPartialListWhenAKindFails(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxRetries = 1 }, false)
	seedVLANs(t, e, "g", 3)
	e.srv.Emulator().Inject(emulatortest.Fault{PathPrefix: "/api/ipam/ip-addresses/", Status: 500})
	got, err := e.c.List(context.Background(), scope.Scope{})
	if err == nil || got != nil {
		t.Fatalf("List with a failing kind = %d objects, %v; want nil and an error", len(got), err)
	}
}
