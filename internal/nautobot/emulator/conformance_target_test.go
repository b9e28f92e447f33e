package emulator

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

// Release lines whose behaviour the scenarios may tell apart.
const (
	line3  = "3.x"
	line24 = "2.4"
)

// target is a Nautobot the conformance scenarios run against: the
// emulator, or a real server on loopback.
type target struct {
	line  string // line3 or line24
	base  string // scheme://host:port, as Nautobot builds its urls
	token string
	http  *http.Client
}

// targetSpec names a target and opens it, or says why it cannot.
type targetSpec struct {
	name string
	open func(t *testing.T) (*target, string)
}

// conformanceTargets are the emulator, claiming each release line, and
// the real servers the environment names.
func conformanceTargets() []targetSpec {
	return []targetSpec{
		{"emulator-3.x", emulatorTarget(line3, "3.2")},
		{"emulator-2.4", emulatorTarget(line24, "2.4")},
		{"nautobot-3.x", realTarget(line3, "IPSYNC_NAUTOBOT_URL", "IPSYNC_NAUTOBOT_TOKEN", "3.2.7")},
		{"nautobot-2.4", realTarget(line24, "IPSYNC_NAUTOBOT_LTM_URL", "IPSYNC_NAUTOBOT_LTM_TOKEN", "2.4.44")},
	}
}

// realSeed is what scripts/nautobot-up.sh puts in a real server's clean
// database, so the emulator starts from the same objects.
var realSeed = SeedData{
	Locations: []string{"DC-A11", "DC-B22", "a11", "a12"},
	Roles:     []string{"provisioning", "storage", "oob", "loopback", "tenant-net"},
	Tenants:   []string{"platform", "netops", "acme"},
	Tags:      []string{"routed", "pxe", "blue", "red"},
}

func emulatorTarget(line, version string) func(t *testing.T) (*target, string) {
	return func(t *testing.T) (*target, string) {
		s := NewServer(WithVersion(version), WithChangeLog())
		t.Cleanup(s.Close)
		if err := s.Seed(realSeed); err != nil {
			t.Fatal(err)
		}
		return &target{line: line, base: s.URL(), token: DefaultToken, http: s.Client()}, ""
	}
}

func realTarget(line, urlEnv, tokenEnv, version string) func(t *testing.T) (*target, string) {
	return func(t *testing.T) (*target, string) {
		base, token := strings.TrimRight(os.Getenv(urlEnv), "/"), strings.TrimSpace(os.Getenv(tokenEnv))
		if base == "" || token == "" {
			return nil, fmt.Sprintf("no real Nautobot %s: set %s and %s, e.g. from "+
				"`NAUTOBOT_VERSION=%s scripts/nautobot-up.sh start` (its URL) and `NAUTOBOT_VERSION=%s scripts/nautobot-up.sh token`",
				line, urlEnv, tokenEnv, version, version)
		}
		return &target{line: line, base: base, token: token, http: &http.Client{Timeout: 60 * time.Second}}, ""
	}
}

// reply is one answer, its body decoded.
type reply struct {
	status int
	header http.Header
	body   any // nil when the body is empty
	raw    []byte
}

// clientAccept is what ipsync's client sends unless a step says otherwise.
const clientAccept = "application/json; version=2.2"

// do sends one request the way ipsync's client does.
func (tg *target) do(method, path string, header map[string]string, body any) (reply, error) {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return reply{}, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, tg.base+path, rd)
	if err != nil {
		return reply{}, err
	}
	req.Header.Set("Authorization", "Token "+tg.token)
	req.Header.Set("Accept", clientAccept)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		if v == "" {
			req.Header.Del(k) // a step may leave out what the client sends
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := tg.http.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, err
	}
	r := reply{status: resp.StatusCode, header: resp.Header, raw: raw}
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &r.body); err != nil {
			return r, fmt.Errorf("%s %s: %d, body is not JSON: %.300s", method, path, resp.StatusCode, raw)
		}
	}
	return r, nil
}

// inventoryPaths are the endpoints the scenarios write to.
var inventoryPaths = []string{
	"/api/ipam/namespaces/", "/api/ipam/vlan-groups/", "/api/ipam/vlans/", "/api/ipam/prefixes/",
	"/api/ipam/ip-addresses/", "/api/ipam/prefix-location-assignments/", "/api/plugins/bgp/autonomous-systems/",
	"/api/extras/tags/", "/api/extras/custom-fields/", "/api/dcim/location-types/", "/api/dcim/locations/",
}

// inventory counts the objects at each endpoint the scenarios write to.
func inventory(t *testing.T, tg *target) string {
	t.Helper()
	var b strings.Builder
	for _, p := range inventoryPaths {
		got, err := tg.do(http.MethodGet, p+"?limit=1", nil, nil)
		if err != nil || got.status != http.StatusOK {
			t.Fatalf("count %s: %v %d %.300s", p, err, got.status, got.raw)
		}
		n, _ := got.body.(map[string]any)["count"].(float64)
		fmt.Fprintf(&b, "%s=%d ", strings.TrimSuffix(strings.TrimPrefix(p, "/api/"), "/"), int(n))
	}
	return strings.TrimSpace(b.String())
}
