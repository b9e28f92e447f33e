package netbox

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ipsync/ipsync/internal/benchdata"
	"github.com/ipsync/ipsync/internal/benchdata/realpass"
	"github.com/ipsync/ipsync/internal/netbox/netboxtest"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sot"
)

// BenchmarkRealNetBox100k measures ipsync against a real NetBox 4.7, in
// one run so that the ratios hold on a noisy machine, the same way as
// BenchmarkRealNautobot100k does for Nautobot:
//
//   - raw: as many objects of the same shape (in VRFs and groups of their
//     own) posted in the same batches, 4 at a time, by a minimal client
//     that reads nothing and plans nothing: the limit of NetBox's bulk
//     API;
//   - create: ipsync's whole apply (read the empty scope, plan,
//     preflight, bulk writes) of the same objects;
//   - noop: a re-plan with nothing to do;
//   - change1pct: 1% of the objects changed, planned and applied.
//
// Needs IPSYNC_NETBOX_BENCH=1 and IPSYNC_NETBOX_URL/_TOKEN;
// IPSYNC_NETBOX_BENCH_PREFIXES scales the set (default 10000 prefixes:
// 100,030 objects).
func BenchmarkRealNetBox100k(b *testing.B) {
	if os.Getenv("IPSYNC_NETBOX_BENCH") == "" {
		b.Skip("set IPSYNC_NETBOX_BENCH=1 and IPSYNC_NETBOX_URL/IPSYNC_NETBOX_TOKEN to run")
	}
	prefixes := 10_000
	if v := os.Getenv("IPSYNC_NETBOX_BENCH_PREFIXES"); v != "" {
		prefixes, _ = strconv.Atoi(v)
	}
	srv := netboxtest.NewForBenchmark(b)
	objs := benchdata.Site(prefixes, "", owner)
	rawObjs := benchdata.Site(prefixes, "raw-", "static:raw")
	ctx := context.Background()
	newClient := func() *Client {
		c, err := New(Config{Settings: sot.Settings{URL: srv.URL(), Token: srv.Token(), Timeout: 10 * time.Minute}}, slog.New(slog.DiscardHandler))
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	if _, err := newClient().Bootstrap(ctx); err != nil {
		b.Fatal(err)
	}
	realpass.Run(b, srv, objs, owner, func(sc scope.Scope) reconcile.Target { return newClient().Target(sc) },
		func() error { return rawCreate(srv, rawObjs, 250, 4) })
}

// rawCreate posts objs kind by kind in batches, as Apply does, with
// bodies that carry the same fields and marker but need no lookups. NetBox
// chooses the ids, so each kind's answers give the ids the next kind
// refers to.
func rawCreate(srv *netboxtest.Server, objs []resource.Object, batch, concurrency int) error {
	ids := map[resource.Key]int{}
	byKind := map[resource.Kind][]resource.Object{}
	for _, o := range objs {
		byKind[o.Kind()] = append(byKind[o.Kind()], o)
	}
	body := func(o resource.Object) map[string]any {
		b := map[string]any{"tags": []map[string]any{{"name": "managed-by-ipsync"}}, "custom_fields": map[string]any{"ipsync_owner": string(o.Meta().Owner)}}
		switch x := o.(type) {
		case *resource.Namespace:
			b["name"] = x.Name
		case *resource.VLANGroup:
			b["name"], b["slug"], b["vid_ranges"] = x.Name, Slug(x.Name), [][]int{{1, 4094}}
		case *resource.VLAN:
			b["group"], b["vid"], b["name"], b["status"] = ids[resource.Key{Kind: resource.KindVLANGroup, Name: x.Group}], x.VID, x.Name, "active"
		case *resource.Prefix:
			b["prefix"], b["status"] = x.Prefix.String(), "active"
			b["vrf"] = ids[resource.Key{Kind: resource.KindNamespace, Name: x.Namespace}]
			b["vlan"] = ids[resource.Key{Kind: resource.KindVLAN, Name: x.VLAN}]
		case *resource.IPAddress:
			b["address"], b["status"] = x.Address.String(), "active"
			b["vrf"] = ids[resource.Key{Kind: resource.KindNamespace, Name: x.Namespace}]
		}
		return b
	}
	for _, k := range []resource.Kind{resource.KindNamespace, resource.KindVLANGroup, resource.KindVLAN, resource.KindPrefix, resource.KindIPAddress} {
		ep, _ := endpointOf(k)
		kind := byKind[k]
		got := make([][]struct {
			ID int `json:"id"`
		}, (len(kind)+batch-1)/batch)
		g := new(errgroup.Group)
		g.SetLimit(concurrency)
		for n, lo := 0, 0; lo < len(kind); n, lo = n+1, lo+batch {
			part := kind[lo:min(lo+batch, len(kind))]
			bodies := make([]map[string]any, len(part))
			for i, o := range part {
				bodies[i] = body(o)
			}
			g.Go(func() error {
				if err := srv.CallErr(http.MethodPost, ep.path, bodies, &got[n]); err != nil {
					return fmt.Errorf("raw POST %s: %w", ep.path, err)
				}
				if len(got[n]) != len(part) {
					return fmt.Errorf("raw POST %s: %d objects answered for %d", ep.path, len(got[n]), len(part))
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return err
		}
		for n, answer := range got {
			for i, w := range answer {
				ids[kind[n*batch+i].Key()] = w.ID
			}
		}
	}
	return nil
}
