package sitesync

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// realNeutron drives a real Neutron's API as a person would, for tests
// that change it between syncs.
type realNeutron struct {
	t    testing.TB
	base string // ends in /v2.0
}

// neutronAt is the real Neutron env names, or a skip saying how to set it.
func neutronAt(t testing.TB, env, why string) *realNeutron {
	t.Helper()
	u := strings.TrimSuffix(os.Getenv(env), "/")
	if u == "" {
		t.Skipf("set %s (scripts/neutron-up.sh start) to run %s", env, why)
	}
	return &realNeutron{t: t, base: strings.TrimSuffix(u, "/v2.0") + "/v2.0"}
}

// call sends one request; Neutron on SQLite answers a write now and then
// with a 5xx (the database is locked) or a 409 while a port delete
// settles, so those are tried again for a while.
func (n *realNeutron) call(method, path string, in, out any) int {
	n.t.Helper()
	var last string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		var body bytes.Buffer
		if in != nil {
			if err := json.NewEncoder(&body).Encode(in); err != nil {
				n.t.Fatal(err)
			}
		}
		req, err := http.NewRequest(method, n.base+path, &body)
		if err != nil {
			n.t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			last = err.Error()
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case resp.StatusCode >= 500 || (resp.StatusCode == http.StatusConflict && method == http.MethodDelete):
			last = fmt.Sprintf("%d %s", resp.StatusCode, b)
			continue
		case method == http.MethodDelete && resp.StatusCode == http.StatusNotFound:
			return resp.StatusCode
		case resp.StatusCode >= 300:
			n.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
		if out != nil {
			if err := json.Unmarshal(b, out); err != nil {
				n.t.Fatalf("%s %s: %v", method, path, err)
			}
		}
		return resp.StatusCode
	}
	n.t.Fatalf("%s %s: still failing after 30 s: %s", method, path, last)
	return 0
}

// create posts one resource and returns its id; the test's cleanup
// deletes it unless the test did.
func (n *realNeutron) create(collection string, attrs map[string]any) string {
	n.t.Helper()
	member := strings.TrimSuffix(collection, "s")
	var out map[string]map[string]any
	n.call(http.MethodPost, "/"+collection, map[string]any{member: attrs}, &out)
	id, _ := out[member]["id"].(string)
	n.t.Cleanup(func() { n.call(http.MethodDelete, "/"+collection+"/"+id, nil, nil) })
	return id
}

func (n *realNeutron) remove(collection, id string) {
	n.t.Helper()
	n.call(http.MethodDelete, "/"+collection+"/"+id, nil, nil)
}
