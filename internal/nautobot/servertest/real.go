package servertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/nautobot/emulator"
	"github.com/ipsync/ipsync/internal/reqcount"
)

// real is a real Nautobot seen through a counting proxy.
type real struct {
	upstream string
	token    string
	counts   *reqcount.Counter
}

// start gives t a clean server: emptied now and, with after, again when t
// ends, and a fresh proxy whose counts are t's own.
func (r *real) start(t testing.TB, after bool) *httptest.Server {
	t.Helper()
	if err := r.reset(); err != nil {
		t.Fatalf("clean the server for the test: %v", err)
	}
	target, _ := url.Parse(r.upstream)
	r.counts.Reset()
	ts := httptest.NewServer(reqcount.Proxy(target, r.counts, t.Logf))
	t.Cleanup(func() {
		ts.Close()
		if !after {
			return
		}
		if err := r.reset(); err != nil {
			t.Errorf("clean the server after the test: %v", err)
		}
	})
	return ts
}

// paths names the list endpoint of each object type tests read.
var paths = map[string]string{
	"ipam.namespace":                       "/api/ipam/namespaces/",
	"ipam.vlangroup":                       "/api/ipam/vlan-groups/",
	"ipam.vlan":                            "/api/ipam/vlans/",
	"ipam.prefix":                          "/api/ipam/prefixes/",
	"ipam.ipaddress":                       "/api/ipam/ip-addresses/",
	"ipam.prefixlocationassignment":        "/api/ipam/prefix-location-assignments/",
	"nautobot_bgp_models.autonomoussystem": "/api/plugins/bgp/autonomous-systems/",
	"extras.customfield":                   "/api/extras/custom-fields/",
	"extras.tag":                           "/api/extras/tags/",
	"extras.status":                        "/api/extras/statuses/",
	"extras.role":                          "/api/extras/roles/",
	"tenancy.tenant":                       "/api/tenancy/tenants/",
	"dcim.location":                        "/api/dcim/locations/",
	"dcim.locationtype":                    "/api/dcim/location-types/",
}

func (r *real) objects(kind string) ([]map[string]any, error) {
	p, ok := paths[kind]
	if !ok {
		return nil, fmt.Errorf("servertest knows no endpoint for %s", kind)
	}
	return r.list(p)
}

// list reads every page of an endpoint.
func (r *real) list(path string) ([]map[string]any, error) {
	var out []map[string]any
	next := r.upstream + path + "?limit=1000&depth=0&exclude_m2m=false"
	for next != "" {
		status, raw, err := call(http.DefaultClient, "", r.token, http.MethodGet, next, nil)
		if err != nil {
			return nil, err
		}
		if status == http.StatusNotFound && strings.HasPrefix(path, "/api/plugins/") {
			return nil, nil
		}
		if status != http.StatusOK {
			return nil, fmt.Errorf("GET %s: %d %s", next, status, raw)
		}
		var page struct {
			Next    string           `json:"next"`
			Results []map[string]any `json:"results"`
		}
		if err := decode(raw, &page); err != nil {
			return nil, err
		}
		out = append(out, page.Results...)
		next = page.Next
	}
	return out, nil
}

// reset deletes what tests and ipsync make, children first, and keeps the
// seed: the Global namespace, stock statuses, locations, roles, tenants
// and the seed's tags.
func (r *real) reset() error {
	for _, kind := range []string{"ipam.ipaddress", "ipam.prefix", "ipam.vlan", "ipam.vlangroup", "ipam.namespace",
		"nautobot_bgp_models.autonomoussystem", "extras.customfield", "extras.tag"} {
		objs, err := r.objects(kind)
		if err != nil {
			return err
		}
		var ids []map[string]any
		for _, o := range objs {
			name, _ := o["name"].(string)
			if kind == "ipam.namespace" && name == "Global" || kind == "extras.tag" && slices.Contains(Seed.Tags, name) {
				continue
			}
			ids = append(ids, map[string]any{"id": o["id"]})
		}
		for lo := 0; lo < len(ids); lo += 500 {
			status, raw, err := call(http.DefaultClient, r.upstream, r.token, http.MethodDelete, paths[kind], ids[lo:min(lo+500, len(ids))])
			if err != nil {
				return err
			}
			if status != http.StatusNoContent {
				return fmt.Errorf("delete %s: %d %s", kind, status, raw)
			}
		}
	}
	return nil
}

// seed creates through the REST API what d lists and the server lacks.
func (r *real) seed(d emulator.SeedData) error {
	ipam := []string{"ipam.namespace", "ipam.vlangroup", "ipam.vlan", "ipam.prefix", "ipam.ipaddress"}
	type want struct {
		kind string
		body map[string]any
	}
	var wants []want
	for _, n := range d.Statuses {
		wants = append(wants, want{"extras.status", map[string]any{"name": n, "content_types": append(ipam, "dcim.location")}})
	}
	for _, n := range d.Roles {
		wants = append(wants, want{"extras.role", map[string]any{"name": n, "content_types": ipam}})
	}
	for _, n := range d.Tenants {
		wants = append(wants, want{"tenancy.tenant", map[string]any{"name": n}})
	}
	for _, n := range d.Tags {
		wants = append(wants, want{"extras.tag", map[string]any{"name": n, "content_types": ipam}})
	}
	for _, n := range d.Namespaces {
		wants = append(wants, want{"ipam.namespace", map[string]any{"name": n}})
	}
	lt := d.LocationType
	if lt == "" {
		lt = "Site"
	}
	for _, n := range d.Locations {
		wants = append(wants, want{"dcim.location", map[string]any{"name": n, "location_type": map[string]any{"name": lt}, "status": map[string]any{"name": "Active"}}})
	}
	have := map[string][]map[string]any{}
	for _, w := range wants {
		if _, ok := have[w.kind]; !ok {
			objs, err := r.objects(w.kind)
			if err != nil {
				return err
			}
			have[w.kind] = objs
		}
		if slices.ContainsFunc(have[w.kind], func(o map[string]any) bool { return o["name"] == w.body["name"] }) {
			continue
		}
		status, raw, err := call(http.DefaultClient, r.upstream, r.token, http.MethodPost, paths[w.kind], w.body)
		if err != nil {
			return err
		}
		if status != http.StatusCreated {
			return fmt.Errorf("create %s %q: %d %s", w.kind, w.body["name"], status, raw)
		}
	}
	return nil
}

// call sends one JSON request; base is prepended to path unless empty.
func call(hc *http.Client, base, token, method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Token "+token)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, raw, err
}

func decode(raw []byte, out any) error {
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("decode %.200s: %w", raw, err)
	}
	return nil
}
