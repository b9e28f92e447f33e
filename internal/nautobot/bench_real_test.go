package nautobot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"testing"

	"github.com/google/uuid"
	"golang.org/x/sync/errgroup"

	"github.com/ipsync/ipsync/internal/benchdata"
	"github.com/ipsync/ipsync/internal/benchdata/realpass"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sot"
)

// BenchmarkRealNautobot100k measures ipsync against a real Nautobot 3.x,
// in one run so that the ratios hold on a noisy machine:
//
//   - raw: as many objects of the same shape (in namespaces and groups of
//     their own) posted in the same batches, 4 at a time as Apply sends
//     them, by a minimal client that reads nothing and plans nothing (ids
//     chosen up front, bodies written by hand): the limit of Nautobot's
//     bulk API;
//   - create: ipsync's whole apply (read the empty scope, plan, preflight,
//     bulk writes) of the same objects;
//   - noop: a re-plan with nothing to do;
//   - change: 1% of the objects changed, planned and applied.
//
// Needs IPSYNC_NAUTOBOT_BENCH=1 and IPSYNC_NAUTOBOT_URL/_TOKEN;
// IPSYNC_NAUTOBOT_BENCH_PREFIXES scales the set (default 10000 prefixes:
// 100,031 objects).
func BenchmarkRealNautobot100k(b *testing.B) {
	if os.Getenv("IPSYNC_NAUTOBOT_BENCH") == "" {
		b.Skip("set IPSYNC_NAUTOBOT_BENCH=1 and IPSYNC_NAUTOBOT_URL/IPSYNC_NAUTOBOT_TOKEN to run")
	}
	prefixes := 10_000
	if v := os.Getenv("IPSYNC_NAUTOBOT_BENCH_PREFIXES"); v != "" {
		prefixes, _ = strconv.Atoi(v)
	}
	srv := servertest.Real3(b)
	objs := benchdata.Site(prefixes, "", owner)
	rawObjs := benchdata.Site(prefixes, "raw-", "static:raw")
	ctx := context.Background()
	newClient := func() *Client {
		c, err := New(Config{Settings: sot.Settings{URL: srv.URL(), Token: srv.Token()}}, slog.New(slog.DiscardHandler))
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
// bodies that carry the same fields and marker but need no lookups:
// every id, the status's and the tag's included, is known up front.
func rawCreate(srv *servertest.Server, objs []resource.Object, batch, concurrency int) error {
	ids := map[resource.Key]string{}
	for _, o := range objs {
		ids[o.Key()] = uuid.NewString()
	}
	var status, tag []map[string]any
	err1 := srv.CallErr(http.MethodGet, "/api/extras/statuses/?name=Active", nil, &struct{ Results *[]map[string]any }{&status})
	err2 := srv.CallErr(http.MethodGet, "/api/extras/tags/?name=managed-by-ipsync", nil, &struct{ Results *[]map[string]any }{&tag})
	if err1 != nil || err2 != nil || len(status) != 1 || len(tag) != 1 {
		return fmt.Errorf("raw: status Active or the marker tag not found")
	}
	common := func(o resource.Object) map[string]any {
		return map[string]any{"id": ids[o.Key()], "tags": []any{tag[0]["id"]}, "custom_fields": map[string]any{"ipsync_owner": string(o.Meta().Owner)}}
	}
	byKind := map[resource.Kind][]map[string]any{}
	for _, o := range objs {
		b := common(o)
		switch x := o.(type) {
		case *resource.Namespace:
			b["name"] = x.Name
		case *resource.VLANGroup:
			b["name"], b["range"] = x.Name, "1-4094"
		case *resource.VLAN:
			b["vlan_group"], b["vid"], b["name"], b["status"] = ids[resource.Key{Kind: resource.KindVLANGroup, Name: x.Group}], x.VID, x.Name, status[0]["id"]
		case *resource.Prefix:
			b["prefix"], b["type"], b["status"] = x.Prefix.String(), x.Type, status[0]["id"]
			b["namespace"] = ids[resource.Key{Kind: resource.KindNamespace, Name: x.Namespace}]
			b["vlan"] = ids[resource.Key{Kind: resource.KindVLAN, Name: x.VLAN}]
		case *resource.IPAddress:
			b["address"], b["status"] = x.Address.String(), status[0]["id"]
			b["namespace"] = ids[resource.Key{Kind: resource.KindNamespace, Name: x.Namespace}]
		}
		byKind[o.Kind()] = append(byKind[o.Kind()], b)
	}
	for _, k := range []resource.Kind{resource.KindNamespace, resource.KindVLANGroup, resource.KindVLAN, resource.KindPrefix, resource.KindIPAddress} {
		ep, _ := endpointOf(k)
		items := byKind[k]
		g := new(errgroup.Group)
		// Prefixes go one batch at a time: Nautobot re-parents existing
		// prefixes when one is created, which concurrent batches would race.
		g.SetLimit(concurrency)
		if k == resource.KindPrefix {
			g.SetLimit(1)
		}
		for lo := 0; lo < len(items); lo += batch {
			part := items[lo:min(lo+batch, len(items))]
			g.Go(func() error { return rawPost(srv, ep.path, part) })
		}
		if err := g.Wait(); err != nil {
			return err
		}
	}
	return nil
}

func rawPost(srv *servertest.Server, path string, part []map[string]any) error {
	raw, _ := json.Marshal(part)
	req, _ := http.NewRequest(http.MethodPost, srv.URL()+path, bytes.NewReader(raw))
	req.Header.Set("Authorization", "Token "+srv.Token())
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("raw POST %s: %d %.300s", path, resp.StatusCode, body)
	}
	return nil
}
