package nautobot

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// integrityError is how Nautobot answers a bulk write whose items clash
// with each other: validation passes item by item, the insert fails, and
// the whole request is rolled back.
const integrityError = `{"error": "duplicate key value violates unique constraint \"ipam_vlan_group_id_name_e53919df_uniq\"\nDETAIL:  Key (vlan_group_id, name)=(x, dup) already exists.\n", "exception": "IntegrityError", "nautobot_version": "3.2.7", "python_version": "3.11.7"}`

const validationError = `{"error": "{'locations': [\"Prefixes may not associate to Locations of types ['Region'].\"]}", "exception": "ValidationError", "nautobot_version": "3.2.7", "python_version": "3.11.7"}`

// clashingNames answers 500 to a bulk write of VLANs two of which have
// the same name, as Nautobot does (the emulator answers 400).
func clashingNames(r *http.Request, body []byte) (int, string, bool) {
	if r.URL.Path != "/api/ipam/vlans/" || (r.Method != http.MethodPost && r.Method != http.MethodPatch) {
		return 0, "", false
	}
	var items []map[string]any
	if json.Unmarshal(body, &items) != nil {
		return 0, "", false
	}
	seen := map[any]bool{}
	for _, it := range items {
		if n, ok := it["name"]; ok {
			if seen[n] {
				return http.StatusInternalServerError, integrityError, true
			}
			seen[n] = true
		}
	}
	return 0, "", false
}

// badPrefix answers 500 to any write that holds prefix 10.0.6.0/24, as
// Nautobot does for a prefix whose location's type does not allow
// prefixes (a ValidationError in save()).
func badPrefix(r *http.Request, body []byte) (int, string, bool) {
	if r.Method == http.MethodPost && r.URL.Path == "/api/ipam/prefixes/" && strings.Contains(string(body), `"10.0.6.0/24"`) {
		return http.StatusInternalServerError, validationError, true
	}
	return 0, "", false
}

// TestServerErrorIsolated: an HTTP 500 to a bulk write is split at once,
// not retried, so the objects that caused it are isolated and named with
// Nautobot's reason while the others are written; a single object's 500
// is retried a little, then is that object's error; only a Nautobot that
// fails reads too stops the run.
func TestServerErrorIsolated(t *testing.T) {
	vlans := func(n int, dup ...int) []resource.Object {
		objs := []resource.Object{&resource.VLANGroup{M: meta(), Name: "g"}}
		for i := range n {
			name := fmt.Sprintf("v%d", i+1)
			if len(dup) == 2 && i == dup[1] {
				name = fmt.Sprintf("v%d", dup[0]+1)
			}
			objs = append(objs, &resource.VLAN{M: meta(), Group: "g", VID: uint16(i + 1), Name: name, Status: "Active"})
		}
		return objs
	}
	prefixes := func() []resource.Object {
		objs := []resource.Object{&resource.Namespace{M: meta(), Name: "n"}}
		for i := range 10 {
			objs = append(objs, &resource.Prefix{M: meta(), Namespace: "n", Prefix: pfx(fmt.Sprintf("10.0.%d.0/24", i)), Status: "Active"})
		}
		return append(objs, &resource.IPAddress{M: meta(), Namespace: "n", Address: pfx("10.0.1.1/24"), Status: "Active"})
	}
	transient := func() func(*http.Request, []byte) (int, string, bool) {
		var once sync.Once
		return func(r *http.Request, _ []byte) (int, string, bool) {
			fail := false
			if r.Method == http.MethodPost && r.URL.Path == "/api/ipam/vlans/" {
				once.Do(func() { fail = true })
			}
			if fail {
				return http.StatusInternalServerError, `{"error": "could not serialize access", "exception": "OperationalError"}`, true
			}
			return 0, "", false
		}
	}
	broken := func(r *http.Request, _ []byte) (int, string, bool) {
		if strings.HasPrefix(r.URL.Path, "/api/ipam/vlans/") {
			return http.StatusInternalServerError, `{"error": "connection to server failed", "exception": "OperationalError"}`, true
		}
		return 0, "", false
	}
	tests := []struct {
		name    string
		objs    []resource.Object
		answer  func(*http.Request, []byte) (int, string, bool)
		stored  map[string]int // content type -> objects stored
		refused string         // key of the one refused object, "" for none
		message []string       // what its message holds
		taken   bool           // whether it says the name is taken
		waits   int            // retries the clock saw
		abort   string         // the error Apply stops with, "" if it goes on
	}{
		{"clash within a bulk create", vlans(40, 6, 30), clashingNames,
			map[string]int{"ipam.vlan": 39}, "vlan g/31", []string{"name"}, true, 0, ""},
		{"validation error in save", prefixes(), badPrefix,
			map[string]int{"ipam.prefix": 9, "ipam.ipaddress": 1}, "prefix n/10.0.6.0/24",
			[]string{"HTTP 500", "ValidationError", "Prefixes may not associate to Locations of types ['Region']"}, false, retries500, ""},
		{"transient 500 on a bulk write", vlans(40), transient(), map[string]int{"ipam.vlan": 40}, "", nil, false, 0, ""},
		{"nautobot fails reads too", vlans(3), broken, map[string]int{"ipam.vlan": 0}, "", nil, false, -1, "fails"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil, false)
			spy := intercept(e, tt.answer)
			res, err := e.c.Apply(context.Background(), creates(tt.objs...))
			switch {
			case tt.abort != "":
				if err == nil || !strings.Contains(err.Error(), tt.abort) || len(res.Errors) != 0 {
					t.Fatalf("Apply = %v, errors %v; want it stopped with %q", err, res.Errors, tt.abort)
				}
			case tt.refused == "":
				if err != nil {
					t.Fatalf("Apply: %v", err)
				}
			default:
				if len(res.Errors) != 1 || res.Errors[0].Key.String() != tt.refused {
					t.Fatalf("Apply = %v, errors %v; want %s refused", err, res.Errors, tt.refused)
				}
				if tt.taken && !notUnique(res.Errors[0].Message) {
					t.Errorf("message %q does not say the name is taken", res.Errors[0].Message)
				}
				for _, m := range tt.message {
					if !strings.Contains(res.Errors[0].Message, m) {
						t.Errorf("message %q lacks %q", res.Errors[0].Message, m)
					}
				}
			}
			for ct, n := range tt.stored {
				if got := e.srv.Count(t, ct); got != n {
					t.Errorf("%d %s stored, want %d", got, ct, n)
				}
			}
			if w := e.clock.Waits(); tt.waits >= 0 && len(w) != tt.waits {
				t.Errorf("clock waited %v, want %d retries", w, tt.waits)
			}
			if n := len(spy.requests("POST /api/ipam/vlans/")); n > 2*7+1 {
				t.Errorf("%d VLAN creates, want at most a bisection's", n)
			}
		})
	}
}

// TestServerErrorOnBulkUpdate: two updates that clash with each other
// in one bulk PATCH make the whole request fail with a 500; the one that
// goes second is named, the other is written.
func TestServerErrorOnBulkUpdate(t *testing.T) {
	e := newEnv(t, nil, false)
	ctx := context.Background()
	seedVLANs(t, e, "g", 10)
	current, err := e.c.List(ctx, scope.Scope{Kinds: []resource.Kind{resource.KindVLAN}})
	if err != nil {
		t.Fatal(err)
	}
	var changes []plan.Change
	for _, c := range current {
		d := resource.Clone(c).(*resource.VLAN)
		if d.VID == 3 || d.VID == 8 {
			d.Name = "same"
		} else {
			d.Description = "updated"
		}
		changes = append(changes, update(d, c, plan.Update))
	}
	intercept(e, clashingNames)
	res, err := e.c.Apply(ctx, changes)
	if err == nil || len(res.Errors) != 1 || !notUnique(res.Errors[0].Message) {
		t.Fatalf("Apply = %v, errors %v; want one update refused as not unique", err, res.Errors)
	}
	if got := res.Counts[resource.KindVLAN][plan.Update]; got != 9 {
		t.Errorf("%d updates written, want 9", got)
	}
}

// TestRealServerErrorIsolated writes, against real servers, a bulk
// create with two VLANs of one name (an IntegrityError: HTTP 500 for the
// whole request), a bulk create with a prefix at a location whose type
// does not allow prefixes (a ValidationError in save(): HTTP 500 too),
// and a bulk update that gives two VLANs one name: the offending objects
// are named with Nautobot's reason and everything else is written.
func TestRealServerErrorIsolated(t *testing.T) {
	servertest.EachReal(t, func(t *testing.T, srv *servertest.Server) {
		e := newRealEnv(t, srv, nil)
		ctx := context.Background()
		lt := e.create("/api/dcim/location-types/", map[string]any{"name": e.name("region"), "content_types": []string{"dcim.device"}})
		region := e.name("r1")
		e.create(pathLocations, map[string]any{"name": region, "location_type": lt, "status": map[string]any{"name": "Active"}})
		if _, err := e.c.Names(ctx); err != nil { // learn the location's id
			t.Fatal(err)
		}
		group, ns := e.name("g"), e.name("ns")
		objs := []resource.Object{&resource.VLANGroup{M: meta(), Name: group}, &resource.Namespace{M: meta(), Name: ns}}
		for i := range 12 {
			name := fmt.Sprintf("v%d", i+1)
			if i == 9 {
				name = "v3"
			}
			objs = append(objs, &resource.VLAN{M: meta(), Group: group, VID: uint16(100 + i), Name: name, Status: "Active"})
		}
		for i := range 6 {
			p := &resource.Prefix{M: meta(), Namespace: ns, Prefix: pfx(fmt.Sprintf("10.0.%d.0/24", i)), Status: "Active"}
			if i == 4 {
				p.Locations = []string{region}
			}
			objs = append(objs, p)
		}
		objs = append(objs, &resource.IPAddress{M: meta(), Namespace: ns, Address: pfx("10.0.1.1/24"), Status: "Active"})
		res, err := e.c.Apply(ctx, creates(objs...))
		if err == nil || len(res.Errors) != 2 {
			t.Fatalf("Apply = %v, errors %v; want two refused objects", err, res.Errors)
		}
		want := map[string][]string{
			resource.VLANKey(group, 109):               {"unique"},
			resource.PrefixKey(ns, pfx("10.0.4.0/24")): {"HTTP 500", "ValidationError", "may not associate"},
		}
		for _, oe := range res.Errors {
			for _, m := range want[oe.Key.Name] {
				if !strings.Contains(oe.Message, m) {
					t.Errorf("%s: message %q lacks %q", oe.Key, oe.Message, m)
				}
			}
			if want[oe.Key.Name] == nil {
				t.Errorf("unexpected error %v", oe)
			}
		}
		counts := map[string]int{"/api/ipam/vlans/": 11, "/api/ipam/prefixes/": 5, "/api/ipam/ip-addresses/": 1}
		for path, n := range counts {
			if got := len(e.stored(path, map[string][]string{"tags": {e.c.cfg.Tag}})); got != n {
				t.Errorf("%d objects stored at %s, want %d", got, path, n)
			}
		}

		current, err := e.c.List(ctx, scope.Scope{VLANGroups: []string{group}, Kinds: []resource.Kind{resource.KindVLAN}})
		if err != nil {
			t.Fatal(err)
		}
		var changes []plan.Change
		for _, c := range current {
			d := resource.Clone(c).(*resource.VLAN)
			d.Description = "updated"
			if d.VID == 101 || d.VID == 106 {
				d.Name = "same"
			}
			changes = append(changes, update(d, c, plan.Update))
		}
		res, err = e.c.Apply(ctx, changes)
		if err == nil || len(res.Errors) != 1 || !notUnique(res.Errors[0].Message) {
			t.Fatalf("clashing bulk update = %v, errors %v; want one refused as not unique", err, res.Errors)
		}
		if got := res.Counts[resource.KindVLAN][plan.Update]; got != 10 {
			t.Errorf("%d updates written, want 10", got)
		}
	})
}

// notUnique reports whether msg is Nautobot's refusal of a duplicate:
// "... must make a unique set." or "... already exists.", depending on
// which validator speaks.
func notUnique(msg string) bool {
	return strings.Contains(msg, "unique") || strings.Contains(msg, "already exists")
}
