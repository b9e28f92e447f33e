package nautobot

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/nautobot/emulator"
	"github.com/ipsync/ipsync/internal/nautobot/emulator/emulatortest"
)

// TestChangeLogOnEmulator reads the emulator's change log through
// changeLog on both release lines: on 3.x the server selects the types by
// content type id, on 2.4 the client reads every type and selects them
// itself; either way Newest and Since must give the same entries, read
// over several pages.
func TestChangeLogOnEmulator(t *testing.T) {
	for _, tc := range []struct{ line, version string }{{"3.x", "3.2"}, {"2.4", "2.4"}} {
		t.Run(tc.line, func(t *testing.T) {
			e := newEnv(t, func(c *Config) { c.PageSize = 2 }, false, emulator.WithVersion(tc.version))
			ctx := context.Background()
			log := e.c.changes()
			call := func(method, path string, body any) string {
				t.Helper()
				var out struct {
					ID string `json:"id"`
				}
				if _, err := e.c.Call(ctx, method, path, nil, body, &out); err != nil {
					t.Fatalf("%s %s: %v", method, path, err)
				}
				return out.ID
			}
			vlanTypes := []string{"ipam.vlan", "ipam.prefix"}
			if got, ok, err := log.Newest(ctx, []string{"ipam.vlan"}); err != nil || ok && got.Type == "ipam.vlan" {
				t.Fatalf("Newest(ipam.vlan) before any VLAN = %+v, %v, %v; want no VLAN entry", got, ok, err)
			}

			g := call(http.MethodPost, "/api/ipam/vlan-groups/", map[string]any{"name": "g1"})
			var vlans []string
			for _, vid := range []int{10, 11, 12} {
				vlans = append(vlans, call(http.MethodPost, "/api/ipam/vlans/", map[string]any{"vid": vid, "name": fmt.Sprint("v", vid), "status": "Active", "vlan_group": g}))
			}
			ns := call(http.MethodPost, "/api/ipam/namespaces/", map[string]any{"name": "site"})
			mark, ok, err := log.Newest(ctx, []string{"ipam.namespace"})
			if err != nil || !ok {
				t.Fatalf("Newest(ipam.namespace) = %+v, %v, %v; want the namespace's create", mark, ok, err)
			}
			if mark.Type != "ipam.namespace" || mark.ObjectID != ns || mark.Deleted {
				t.Fatalf("Newest(ipam.namespace) = %+v, want the create of %s", mark, ns)
			}
			newest, _, err := log.Newest(ctx, []string{"ipam.vlan"})
			wantNewest := map[string]string{"3.x": vlans[2], "2.4": ns}[tc.line] // 2.4 cannot select by type
			if err != nil || newest.ObjectID != wantNewest {
				t.Errorf("Newest(ipam.vlan) = %+v, %v; want the entry of %s", newest, err, wantNewest)
			}

			call(http.MethodPatch, "/api/ipam/vlans/"+vlans[0]+"/", map[string]any{"description": "by hand"})
			if _, err := e.c.Call(ctx, http.MethodDelete, "/api/ipam/vlans/"+vlans[1]+"/", nil, nil, nil); err != nil {
				t.Fatalf("delete VLAN: %v", err)
			}
			p := call(http.MethodPost, "/api/ipam/prefixes/", map[string]any{"prefix": "10.0.0.0/24", "status": "Active", "namespace": ns})

			for _, c := range []struct {
				name  string
				types []string
				since changelog.Entry
				want  []string // "type object deleted", newest first
			}{
				{"since the namespace", vlanTypes, mark, []string{"ipam.prefix " + p + " false", "ipam.vlan " + vlans[1] + " true", "ipam.vlan " + vlans[0] + " false"}},
				{"every VLAN change", []string{"ipam.vlan"}, changelog.Entry{}, []string{
					"ipam.vlan " + vlans[1] + " true", "ipam.vlan " + vlans[0] + " false",
					"ipam.vlan " + vlans[2] + " false", "ipam.vlan " + vlans[1] + " false", "ipam.vlan " + vlans[0] + " false"}},
				{"a type without changes", []string{"ipam.ipaddress"}, changelog.Entry{}, nil},
			} {
				got, err := log.Since(ctx, c.types, c.since.Time)
				if err != nil {
					t.Fatalf("%s: Since: %v", c.name, err)
				}
				// Where the server cannot select the types (2.4), Since
				// returns every type, and Count counts them the same.
				n, err := log.Count(ctx, c.types, c.since.Time, time.Now().Add(time.Hour), false)
				if err != nil || n != len(got) {
					t.Errorf("%s: Count = %d, %v; want %d, as many as Since returned", c.name, n, err, len(got))
				}
				got = slices.DeleteFunc(got, func(e changelog.Entry) bool { return !slices.Contains(c.types, e.Type) })
				slices.SortFunc(got, func(a, b changelog.Entry) int { return b.Time.Compare(a.Time) })
				var short []string
				ids := map[string]bool{}
				for _, en := range got {
					short = append(short, en.Type+" "+en.ObjectID+" "+map[bool]string{true: "true", false: "false"}[en.Deleted])
					if ids[en.ID] || en.ID == "" || en.Time.IsZero() {
						t.Errorf("%s: entry %+v: id repeated or missing, or no time", c.name, en)
					}
					ids[en.ID] = true
				}
				if !slices.Equal(short, c.want) {
					t.Errorf("%s: Since(%v, %v) = %q, want %q", c.name, c.types, c.since.Time, short, c.want)
				}
			}
		})
	}
}

// TestChangeLogCutShort checks that a read of the log that the server
// cuts short fails instead of returning part of the log, and that a
// passing fault is retried: the cursor trusts Since to return every
// change.
func TestChangeLogCutShort(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault emulatortest.Fault
		fails bool
	}{
		{"pages end early", emulatortest.Fault{EndEarly: true}, true},
		{"the count is off", emulatortest.Fault{CountDelta: 1}, true},
		{"a 503 once", emulatortest.Fault{Status: http.StatusServiceUnavailable, Times: 1}, false},
		{"a truncated page once", emulatortest.Fault{Truncate: true, Times: 1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, func(c *Config) { c.PageSize = 2 }, false)
			ctx := context.Background()
			log := e.c.changes()
			for i := range 5 {
				if _, err := e.c.Call(ctx, http.MethodPost, "/api/ipam/namespaces/", nil, map[string]any{"name": fmt.Sprint("ns", i)}, nil); err != nil {
					t.Fatal(err)
				}
			}
			tc.fault.Method, tc.fault.PathPrefix = http.MethodGet, pathObjectChanges
			e.srv.Emulator().Inject(tc.fault)
			got, err := log.Since(ctx, []string{"ipam.namespace"}, time.Time{})
			switch {
			case tc.fails && err == nil:
				t.Errorf("Since = %d entries, want an error", len(got))
			case !tc.fails && err != nil:
				t.Errorf("Since: %v, want the five creates", err)
			case !tc.fails && len(got) != 5:
				t.Errorf("Since = %d entries, want 5", len(got))
			case !tc.fails:
				// Three pages of two, one of them twice.
				if n := e.srv.Requests(http.MethodGet, pathObjectChanges); n != 4 {
					t.Errorf("read the log in %d requests, want 4", n)
				}
			}
		})
	}
}
