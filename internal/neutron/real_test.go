package neutron

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// realNeutron is the URL of a real Neutron to test against, with noauth.
func realNeutron(t testing.TB) string {
	t.Helper()
	u := os.Getenv("IPSYNC_NEUTRON_URL")
	if u == "" {
		t.Skip("set IPSYNC_NEUTRON_URL (scripts/neutron-up.sh start) to run")
	}
	return strings.TrimSuffix(strings.TrimSuffix(u, "/"), "/v2.0")
}

// realReader is what most tests on the real Neutron start from: its
// admin, and a reader of it.
func realReader(t *testing.T) (*admin, *Reader) {
	t.Helper()
	base := realNeutron(t)
	return newAdmin(t, base), readerOf(t, base)
}

// readerOf is a reader of the real Neutron at base.
func readerOf(t *testing.T, base string) *Reader {
	t.Helper()
	r, err := NewReader(context.Background(), Config{Endpoint: base, Auth: AuthNoauth}, discard())
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	return r
}

// realHierarchicalNeutron is the base URL of the real Neutron whose own
// test mechanism driver binds ports hierarchically, with dynamic VLAN
// segments (NEUTRON_MECH_DRIVERS=test): one of its own, because that
// driver refuses the ports networking-baremetal binds.
func realHierarchicalNeutron(t testing.TB) string {
	t.Helper()
	u := os.Getenv("IPSYNC_NEUTRON_HIERARCHICAL_URL")
	if u == "" {
		t.Skip("set IPSYNC_NEUTRON_HIERARCHICAL_URL (NEUTRON_MECH_DRIVERS=test NEUTRON_TYPE_DRIVERS=flat,vlan,vxlan,local NEUTRON_VLAN_RANGES=physnet1:100:109 scripts/neutron-up.sh start) to run")
	}
	return strings.TrimSuffix(strings.TrimSuffix(u, "/"), "/v2.0")
}

// realBaremetalNeutron is the base URL of the real Neutron that binds
// bare-metal ports (NEUTRON_MECH_DRIVERS=baremetal): one of its own,
// because networking-baremetal refuses networks created with several
// segments at once, which other tests make.
func realBaremetalNeutron(t testing.TB) string {
	t.Helper()
	u := os.Getenv("IPSYNC_NEUTRON_BAREMETAL_URL")
	if u == "" {
		t.Skip("set IPSYNC_NEUTRON_BAREMETAL_URL (NEUTRON_MECH_DRIVERS=baremetal scripts/neutron-up.sh start) to run")
	}
	return strings.TrimSuffix(strings.TrimSuffix(u, "/"), "/v2.0")
}

// admin drives a real Neutron's API directly to set up what a test reads.
// Everything it creates is deleted when the test ends, newest first.
type admin struct {
	t    testing.TB
	base string
	http http.Client
}

func newAdmin(t testing.TB, base string) *admin {
	return &admin{t: t, base: base + "/v2.0", http: http.Client{Timeout: 5 * time.Minute}}
}

// call sends body as JSON and decodes the answer into out; it returns the
// HTTP status and fails the test on a transport error.
func (a *admin) call(method, path string, body, out any, header ...string) int {
	a.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			a.t.Fatalf("encode %s %s: %v", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, a.base+path, rd)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := a.http.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(data, out); err != nil {
			a.t.Fatalf("%s %s: decode %s: %v", method, path, data, err)
		}
	}
	if resp.StatusCode >= 300 && out != nil {
		a.t.Fatalf("%s %s = %d %s", method, path, resp.StatusCode, data)
	}
	return resp.StatusCode
}

// create POSTs one resource ("networks", {"name": ...}), schedules its
// delete, and returns it.
func (a *admin) create(collection string, attrs map[string]any) map[string]any {
	a.t.Helper()
	member := strings.TrimSuffix(collection, "s")
	var out map[string]map[string]any
	a.call(http.MethodPost, "/"+collection, map[string]any{member: attrs}, &out)
	obj := out[member]
	id := obj["id"].(string)
	a.t.Cleanup(func() { a.remove(collection, id) })
	return obj
}

// remove deletes a resource; a 404 (already gone) is fine.
func (a *admin) remove(collection, id string) {
	a.t.Helper()
	if code := a.call(http.MethodDelete, "/"+collection+"/"+id, nil, nil); code != http.StatusNoContent && code != http.StatusNotFound {
		a.t.Errorf("delete %s %s = %d", collection, id, code)
	}
}

// runID makes names and address blocks of one test run unique, so runs
// against the same server do not see each other's records as duplicates.
type runID struct {
	name  string // "it-1a2b3c"
	octet int    // second octet of the run's IPv4 subnets
	hex   string // third group of the run's IPv6 subnets
}

func newRunID() runID {
	n := rand.IntN(1 << 24)
	return runID{name: fmt.Sprintf("it-%06x", n), octet: 1 + n%250, hex: fmt.Sprintf("%x", n&0xffff)}
}

func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }

func num(m map[string]any, k string) int { f, _ := m[k].(float64); return int(f) }
