package neutron

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRealChangedNetworks asks real Neutrons what changed: one with filter
// validation on (Neutron's default, IPSYNC_NEUTRON_URL as scripts start
// it) refuses changed_since; one with it off (IPSYNC_NEUTRON_URL_B with
// IPSYNC_NEUTRON_B_CHANGED_SINCE=1, started with
// NEUTRON_FILTER_VALIDATION=false) names the networks whose network,
// subnet or port changed, and not the others.
func TestRealChangedNetworks(t *testing.T) {
	ctx := context.Background()
	t.Run("filter validation on", func(t *testing.T) {
		base := realNeutron(t)
		r := readerOf(t, base)
		if _, err := r.ChangedNetworks(ctx, time.Now().Add(-time.Minute)); !errors.Is(err, ErrNoChangeFilter) {
			t.Errorf("ChangedNetworks() error = %v, want ErrNoChangeFilter", err)
		}
	})
	t.Run("filter validation off", func(t *testing.T) {
		u := os.Getenv("IPSYNC_NEUTRON_URL_B")
		if u == "" || os.Getenv("IPSYNC_NEUTRON_B_CHANGED_SINCE") != "1" {
			t.Skip("set IPSYNC_NEUTRON_URL_B to a Neutron started with NEUTRON_FILTER_VALIDATION=false and IPSYNC_NEUTRON_B_CHANGED_SINCE=1 to run")
		}
		base := strings.TrimSuffix(strings.TrimSuffix(u, "/"), "/v2.0")
		a := newAdmin(t, base)
		run := newRunID()
		r := readerOf(t, base)
		net := func(name string) string {
			return str(a.create("networks", map[string]any{"name": run.name + "-" + name, "tenant_id": "p1"}), "id")
		}
		quiet, bySubnet, byPort, renamed := net("quiet"), net("subnet"), net("port"), net("renamed")
		subnet := a.create("subnets", map[string]any{"network_id": byPort, "cidr": fmt.Sprintf("10.%d.7.0/24", run.octet), "ip_version": 4, "tenant_id": "p1"})
		// Neutron stamps whole seconds and compares with >=: a second on,
		// nothing made so far is at or after the mark.
		time.Sleep(1100 * time.Millisecond)
		mark := time.Now().UTC().Truncate(time.Second).Add(time.Second)
		time.Sleep(time.Until(mark))
		a.create("subnets", map[string]any{"network_id": bySubnet, "cidr": fmt.Sprintf("10.%d.8.0/24", run.octet), "ip_version": 4, "tenant_id": "p1"})
		a.create("ports", map[string]any{"network_id": byPort, "tenant_id": "p1", "fixed_ips": []map[string]any{{"subnet_id": str(subnet, "id")}}})
		a.call("PUT", "/networks/"+renamed, map[string]any{"network": map[string]any{"name": run.name + "-renamed-2"}}, nil)
		got, err := r.ChangedNetworks(ctx, mark)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{bySubnet, byPort, renamed} {
			if !slices.Contains(got, id) {
				t.Errorf("ChangedNetworks() = %v, lacks %s", got, id)
			}
		}
		if slices.Contains(got, quiet) {
			t.Errorf("ChangedNetworks() = %v, names the network nothing changed in (%s)", got, quiet)
		}
	})
}
