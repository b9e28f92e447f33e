package sitesync

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/nautobot"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sot"
)

// benchGroups are the physical networks scripts/neutron-bench-setup.sh
// puts VLANs on, as VLAN groups.
var benchGroups = []string{"a11-12-network", "a11-13-network", "b22-1-network"}

// BenchmarkRealIncremental measures one site's syncs against a real
// Nautobot and the real Neutron filled by scripts/neutron-bench-setup.sh
// (started with NEUTRON_FILTER_VALIDATION=false, so that it takes
// changed_since), in one run: today's full read beside the sweep, a sync
// with nothing changed, one after 100 changes in Neutron and 10 hand
// edits in Nautobot, and the first syncs after a restart and a lease
// takeover (benchRestarts). The Nautobot side is the site's mapping, loaded
// straight into the database once (IPSYNC_NAUTOBOT_LOAD, a command that
// takes the objects file on BENCH_OBJECTS; see BENCHMARKS.md).
func BenchmarkRealIncremental(b *testing.B) {
	nbURL, nbToken, neutronURL := os.Getenv("IPSYNC_NAUTOBOT_URL"), os.Getenv("IPSYNC_NAUTOBOT_TOKEN"), os.Getenv("IPSYNC_NEUTRON_BENCH_URL")
	if os.Getenv("IPSYNC_INCREMENTAL_BENCH") != "1" || nbURL == "" || neutronURL == "" {
		b.Skip("set IPSYNC_INCREMENTAL_BENCH=1, IPSYNC_NAUTOBOT_URL/TOKEN and IPSYNC_NEUTRON_BENCH_URL (see BENCHMARKS.md)")
	}
	ctx := context.Background()
	owner := resource.NeutronOwner("bench")
	c, err := nautobot.New(nautobot.Config{Settings: sot.Settings{URL: nbURL, Token: nbToken}}, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.Bootstrap(ctx); err != nil {
		b.Fatal(err)
	}
	sc := scope.Site(owner, "bench", benchGroups)
	seedBenchSite(b, c)
	src, err := neutron.NewReader(ctx, neutron.Config{Endpoint: neutronURL, Auth: neutron.AuthNoauth}, nil)
	if err != nil {
		b.Fatal(err)
	}
	mc := neutron.MapConfig{Site: "bench", Namespace: "bench"}
	loadBenchSite(b, c, src, mc, owner)

	for b.Loop() {
		measure := func(what string, s *Syncer, req Request) Outcome {
			b.Helper()
			start := time.Now()
			out, err := s.Sync(ctx, req)
			if err != nil {
				b.Fatalf("%s: %v", what, err)
			}
			b.Logf("%-44s %8.2f s  requests neutron %4d, nautobot %4d  objects read neutron %6d, nautobot %6d  wrote %d, missed %d",
				what, time.Since(start).Seconds(), out.Reads["neutron"], out.Reads["target"], out.Objects["neutron"], out.Objects["target"],
				out.Writes, len(out.Misses["neutron"])+len(out.Misses["target"]))
			return out
		}
		policy := plan.DefaultPolicy(owner)
		// Today's sync: both sides read whole every time.
		// IPSYNC_INCREMENTAL_BENCH_BEFORE=0 leaves out the line that takes
		// as long as a sweep.
		if os.Getenv("IPSYNC_INCREMENTAL_BENCH_BEFORE") != "0" {
			today := New(Config{Map: mc, Policy: policy}, wholeSource{src}, c.Target(sc), nil)
			measure("full read and plan (every sync before)", today, Request{})
		}

		s := newTestSyncer(Config{Map: mc, Policy: policy}, src, c.Target(sc))
		measure("sweep (start, then daily)", s, Request{Sweep: true})
		if out := measure("sync, nothing changed", s, Request{}); out.Writes != 0 {
			b.Errorf("a sync with nothing changed wrote %d objects", out.Writes)
		}
		renamed := changeBenchSite(b, c, neutronURL, owner)
		// Neutron's provider:network_type filter is not applied to the
		// list, so some of the renamed networks are VXLAN ones without a
		// VLAN; the next sync writing nothing shows it all converged.
		measure("sync after 100 Neutron changes, 10 hand edits", s, Request{})
		if out := measure("sync, nothing changed", s, Request{}); out.Writes != 0 {
			b.Errorf("the sync after the changes were synced wrote %d objects", out.Writes)
		}
		// Leave the site as the benchmark found it.
		n := &realNeutron{t: b, base: strings.TrimSuffix(neutronURL, "/") + "/v2.0"}
		for id, name := range renamed {
			n.call(http.MethodPut, "/networks/"+id, map[string]any{"network": map[string]any{"name": name}}, nil)
		}
		measure("sync after the names are back", s, Request{})

		newTarget := func() *nautobot.Target {
			c, err := nautobot.New(nautobot.Config{Settings: sot.Settings{URL: nbURL, Token: nbToken}}, slog.New(slog.DiscardHandler))
			if err != nil {
				b.Fatal(err)
			}
			return c.Target(sc)
		}
		renamed = benchRestarts(b, s, n, src, newTarget, mc, policy, measure)
		for id, name := range renamed {
			n.call(http.MethodPut, "/networks/"+id, map[string]any{"network": map[string]any{"name": name}}, nil)
		}
		measure("sync after those names are back", s, Request{})
	}
}

// wholeSource and wholeTarget hide what lets a sync read by changes: a
// sync through them reads both sides whole, as every sync did before.
type wholeSource struct{ r *neutron.Reader }

func (w wholeSource) Read(ctx context.Context) (*neutron.Snapshot, error) { return w.r.Read(ctx) }
func (w wholeSource) ReadNetworks(ctx context.Context, ids []string) (*neutron.Snapshot, error) {
	return w.r.ReadNetworks(ctx, ids)
}
func (w wholeSource) Requests() int64 { return w.r.Requests() }
func (w wholeSource) ChangedNetworks(context.Context, time.Time) ([]string, error) {
	return nil, neutron.ErrNoChangeFilter
}

// seedBenchSite makes the site's namespace and VLAN groups, as the static
// spec would.
func seedBenchSite(b *testing.B, c *nautobot.Client) {
	static := resource.StaticOwner("bench-spec")
	objs := []resource.Object{&resource.Namespace{M: resource.Meta{Owner: static}, Name: "bench"}}
	for _, g := range benchGroups {
		objs = append(objs, &resource.VLANGroup{M: resource.Meta{Owner: static}, Name: g})
	}
	t := c.Target(scope.Static(static))
	r, err := reconcile.Plan(context.Background(), objs, t, plan.Policy{Owner: static, Mode: plan.ModeCreateOnly})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := r.Apply(context.Background()); err != nil {
		b.Fatal(err)
	}
}

// loadBenchSite loads the site's mapping into Nautobot's database unless
// the owner already has its IP addresses there.
func loadBenchSite(b *testing.B, c *nautobot.Client, src *neutron.Reader, mc neutron.MapConfig, owner resource.Owner) {
	ctx := context.Background()
	var page struct {
		Count int `json:"count"`
	}
	if _, err := c.Call(ctx, http.MethodGet, "/api/ipam/ip-addresses/", url.Values{"cf_ipsync_owner": {string(owner)}, "limit": {"1"}}, nil, &page); err != nil {
		b.Fatal(err)
	}
	snap, err := src.Read(ctx)
	if err != nil {
		b.Fatal(err)
	}
	mc.KnownGroups = map[string]bool{}
	for _, g := range benchGroups {
		mc.KnownGroups[g] = true
	}
	objs, _ := neutron.Map(snap, mc)
	file := map[string]any{"owner": owner, "namespace": mc.Namespace, "tag": "managed-by-ipsync", "owner_field": "ipsync_owner", "vni_field": "vni"}
	var vlans, prefixes, ips []resource.Object
	for _, o := range objs {
		switch o := o.(type) {
		case *resource.VLAN:
			vlans = append(vlans, o)
		case *resource.Prefix:
			prefixes = append(prefixes, o)
		case *resource.IPAddress:
			ips = append(ips, o)
		case *resource.Namespace:
		default:
			b.Fatalf("the loader cannot write %s %s", o.Key().Kind, o.Key().Name)
		}
	}
	b.Logf("site: %d VLANs, %d prefixes, %d IP addresses (%d in Nautobot)", len(vlans), len(prefixes), len(ips), page.Count)
	if page.Count == len(ips) {
		return
	}
	if page.Count > 0 {
		b.Fatalf("Nautobot holds %d of the site's %d IP addresses: start it afresh", page.Count, len(ips))
	}
	load := os.Getenv("IPSYNC_NAUTOBOT_LOAD")
	if load == "" {
		b.Fatal("the site is not in Nautobot: set IPSYNC_NAUTOBOT_LOAD to a command that loads it (see BENCHMARKS.md)")
	}
	file["vlans"], file["prefixes"], file["ip_addresses"] = vlans, prefixes, ips
	path := filepath.Join(b.TempDir(), "objects.json")
	body, err := json.Marshal(file)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, body, 0o600); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	cmd := exec.Command("sh", "-c", load)
	cmd.Env = append(os.Environ(), "BENCH_OBJECTS="+path)
	outb, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(outb), "loaded") {
		b.Fatalf("load the site into Nautobot: %v\n%s", err, outb)
	}
	b.Logf("loaded into Nautobot's database in %.1f s: %s", time.Since(start).Seconds(), strings.TrimSpace(string(outb)))
}

// changeBenchSite makes 100 changes in Neutron (100 VLAN networks renamed,
// which renames their VLANs) and 10 hand edits in Nautobot (descriptions of
// the owner's IP addresses). It returns the networks renamed and their old
// names. New ports would not do: the setup script's copied subnets, and
// the template's renumbered ones, have no IPAM records Neutron allocates
// from.
func changeBenchSite(b *testing.B, c *nautobot.Client, neutronURL string, owner resource.Owner) map[string]string {
	ctx := context.Background()
	n := &realNeutron{t: b, base: strings.TrimSuffix(neutronURL, "/") + "/v2.0"}
	var nets struct {
		Networks []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"networks"`
	}
	n.call(http.MethodGet, "/networks?provider:network_type=vlan&limit=100&fields=id&fields=name", nil, &nets)
	renamed := map[string]string{}
	for _, net := range nets.Networks {
		renamed[net.ID] = net.Name
		n.call(http.MethodPut, "/networks/"+net.ID, map[string]any{"network": map[string]any{"name": net.Name + "-renamed"}}, nil)
	}
	var page struct {
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
	}
	if _, err := c.Call(ctx, http.MethodGet, "/api/ipam/ip-addresses/", url.Values{"cf_ipsync_owner": {string(owner)}, "limit": {"10"}}, nil, &page); err != nil {
		b.Fatal(err)
	}
	for i, ip := range page.Results {
		if _, err := c.Call(ctx, http.MethodPatch, "/api/ipam/ip-addresses/"+ip.ID+"/", nil, map[string]any{"description": fmt.Sprintf("edited by hand %d", i)}, nil); err != nil {
			b.Fatal(err)
		}
	}
	return renamed
}
