package cli

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
)

// TestSubnetPoolsToNeutron: the spec's subnet pool of a site that opts in
// to subnet_pools (and not to segment_ranges) is planned (exit 2) and
// written with apply --commit to its real Neutron, in the address scope of
// its namespace carrying the owner; a rerun plans nothing (exit 0), and a
// spec dropping a prefix a subnet was allocated from is refused (exit 3)
// naming the subnet, with nothing written.
func TestSubnetPoolsToNeutron(t *testing.T) {
	base := neutronURL(t)
	// Only Neutron is written; Nautobot is the emulator's.
	srv := servertest.Emulator(t)
	cfg := siteConfig(t, srv, base, "")
	raw, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(raw), "    namespace: a11\n", "    namespace: a11\n    subnet_pools: true\n", 1)
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	const pool, scope = "a11-tenant-v4", "a11 (ipsync_owner=static:deploy)"
	// The examples' pool and scope are the same in every run: leave none of
	// a run before, and none of this one.
	removeSpecPool(t, base, pool, scope)
	t.Cleanup(func() { removeSpecPool(t, base, pool, scope) })

	args := []string{"--config", cfg, "--site", "a11", "--target", "neutron"}
	code, out, errOut := run(t, nil, append([]string{"plan"}, args...)...)
	if code != ExitChanges {
		t.Fatalf("first plan: exit %d, want %d (changes)\n%s\n%s", code, ExitChanges, out, errOut)
	}
	for _, want := range []string{"subnet_pool", pool, "address_scope", "a11/v4"} {
		if !strings.Contains(out, want) {
			t.Errorf("first plan lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "segment_range") {
		t.Errorf("a site that does not opt in to segment_ranges plans ranges:\n%s", out)
	}
	if code, out, errOut := run(t, nil, append([]string{"apply", "--commit"}, args...)...); code != ExitOK {
		t.Fatalf("apply --commit: exit %d\n%s\n%s", code, out, errOut)
	}

	got := neutronPool(t, base, pool)
	if fmt.Sprint(got["prefixes"]) != "[10.11.128.0/18]" || poolNum(got, "default_prefixlen") != 26 || poolNum(got, "min_prefixlen") != 24 ||
		poolNum(got, "max_prefixlen") != 28 || got["description"] != "tenant subnets of a11" || got["shared"] != false {
		t.Errorf("pool in Neutron = %v, want the spec's: [10.11.128.0/18], lengths 26/24/28, its description, not shared", got)
	}
	if tags := fmt.Sprint(got["tags"]); !strings.Contains(tags, "managed-by-ipsync") || !strings.Contains(tags, "ipsync_owner=static:deploy") {
		t.Errorf("pool tags = %s, want the marker of static:deploy", tags)
	}
	var sc struct {
		Scope map[string]any `json:"address_scope"`
	}
	neutronCall(t, http.MethodGet, base+"/v2.0/address-scopes/"+fmt.Sprint(got["address_scope_id"]), nil, &sc)
	if sc.Scope["name"] != scope || poolNum(sc.Scope, "ip_version") != 4 {
		t.Errorf("the pool's address scope = %v, want %q of IPv4", sc.Scope, scope)
	}

	code, out, errOut = run(t, nil, append([]string{"plan"}, args...)...)
	if code != ExitOK || !strings.Contains(out, "No changes") {
		t.Errorf("rerun plan: exit %d, want %d and no changes\n%s\n%s", code, ExitOK, out, errOut)
	}
	if code, out, errOut := run(t, nil, append([]string{"apply", "--commit"}, args...)...); code != ExitOK {
		t.Errorf("rerun apply --commit: exit %d\n%s\n%s", code, out, errOut)
	}
	if again := neutronPool(t, base, pool); again["revision_number"] != got["revision_number"] {
		t.Errorf("rerun apply changed the pool: revision %v -> %v", got["revision_number"], again["revision_number"])
	}

	// A subnet in the pool's upper half, then a spec that keeps only the
	// lower half.
	var n struct {
		Network map[string]any `json:"network"`
	}
	neutronCall(t, http.MethodPost, base+"/v2.0/networks", map[string]any{"network": map[string]any{"name": "pools-cli-test"}}, &n)
	netID := fmt.Sprint(n.Network["id"])
	t.Cleanup(func() {
		if err := deleteNetwork(base, netID); err != nil {
			t.Error(err)
		}
	})
	var s struct {
		Subnet map[string]any `json:"subnet"`
	}
	neutronCall(t, http.MethodPost, base+"/v2.0/subnets", map[string]any{"subnet": map[string]any{"network_id": netID, "ip_version": 4,
		"subnetpool_id": got["id"], "cidr": "10.11.176.0/26"}}, &s)
	subID := fmt.Sprint(s.Subnet["id"])
	t.Cleanup(func() {
		if err := deleteUntilGone(base + "/v2.0/subnets/" + subID); err != nil {
			t.Error(err)
		}
	})
	shrunk := editedCopy(t, filepath.Join(repoRoot, "examples"), func(s string) string {
		return strings.Replace(s, "prefixes: [10.11.128.0/18]", "prefixes: [10.11.128.0/19]", 1)
	})
	shrunkCfg := writeConfig(t, strings.Replace(text, strconv.Quote(filepath.Join(repoRoot, "examples")), strconv.Quote(shrunk), 1))
	code, out, errOut = run(t, nil, "plan", "--config", shrunkCfg, "--site", "a11", "--target", "neutron")
	if code != ExitRefused {
		t.Errorf("plan dropping an allocated prefix: exit %d, want %d (refused)\n%s\n%s", code, ExitRefused, out, errOut)
	}
	for _, want := range []string{"10.11.128.0/18", subID, "10.11.176.0/26", netID} {
		if !strings.Contains(out+errOut, want) {
			t.Errorf("refused plan does not name %q:\n%s\n%s", want, out, errOut)
		}
	}
	code, out, errOut = run(t, nil, "apply", "--commit", "--config", shrunkCfg, "--site", "a11", "--target", "neutron")
	if code != ExitRefused {
		t.Errorf("apply --commit dropping an allocated prefix: exit %d, want %d (refused)\n%s\n%s", code, ExitRefused, out, errOut)
	}
	if after := neutronPool(t, base, pool); fmt.Sprint(after["prefixes"]) != "[10.11.128.0/18]" || after["revision_number"] != got["revision_number"] {
		t.Errorf("a refused apply changed the pool to %v", after)
	}
}

// neutronPool is the one pool named name in the real Neutron.
func neutronPool(t *testing.T, base, name string) map[string]any {
	t.Helper()
	var out struct {
		Pools []map[string]any `json:"subnetpools"`
	}
	neutronCall(t, http.MethodGet, base+"/v2.0/subnetpools?name="+name, nil, &out)
	if len(out.Pools) != 1 {
		t.Fatalf("Neutron holds %d pools named %s, want 1: %v", len(out.Pools), name, out.Pools)
	}
	return out.Pools[0]
}

// removeSpecPool deletes the pools named pool marked static:deploy, then
// the scopes named scope.
func removeSpecPool(t *testing.T, base, pool, scope string) {
	t.Helper()
	var ps struct {
		Pools []map[string]any `json:"subnetpools"`
	}
	neutronCall(t, http.MethodGet, base+"/v2.0/subnetpools?name="+pool, nil, &ps)
	for _, p := range ps.Pools {
		if tags, _ := p["tags"].([]any); slices.Contains(tags, any("ipsync_owner=static:deploy")) {
			if err := deleteUntilGone(base + "/v2.0/subnetpools/" + fmt.Sprint(p["id"])); err != nil {
				t.Error(err)
			}
		}
	}
	var ss struct {
		Scopes []map[string]any `json:"address_scopes"`
	}
	neutronCall(t, http.MethodGet, base+"/v2.0/address-scopes", nil, &ss)
	for _, s := range ss.Scopes {
		if s["name"] == scope {
			if err := deleteUntilGone(base + "/v2.0/address-scopes/" + fmt.Sprint(s["id"])); err != nil {
				t.Error(err)
			}
		}
	}
}

// poolNum is a number Neutron answers as a number or, as it does for a
// pool's prefix lengths, as text; -1 when it is neither.
func poolNum(m map[string]any, k string) int {
	switch v := m[k].(type) {
	case float64:
		return int(v)
	case string:
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return -1
}
