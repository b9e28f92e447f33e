package nautobot

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/benchdata"
	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sot"
)

// BenchmarkRealFollowCheck measures what following a site's change log
// costs against a real Nautobot 3.x, in one run: the whole read a follower
// starts from, a refresh with nothing changed (the log's page, its count
// behind the overlap, and the check of the view: each kind's objects
// stamped at or after the newest the view holds), and a refresh after 10
// edits that wrote no change record, which only the check finds. The site
// (benchdata.Site) is loaded straight into the database by
// IPSYNC_NAUTOBOT_LOAD, as for BenchmarkRealIncremental.
//
// Needs IPSYNC_FOLLOW_BENCH=1, IPSYNC_NAUTOBOT_URL/_TOKEN, _SHELL and
// _LOAD; IPSYNC_NAUTOBOT_BENCH_PREFIXES scales the site (default 10000
// prefixes: 100,030 objects).
func BenchmarkRealFollowCheck(b *testing.B) {
	if os.Getenv("IPSYNC_FOLLOW_BENCH") != "1" || os.Getenv("IPSYNC_NAUTOBOT_LOAD") == "" {
		b.Skip("set IPSYNC_FOLLOW_BENCH=1, IPSYNC_NAUTOBOT_URL/_TOKEN/_SHELL and IPSYNC_NAUTOBOT_LOAD (see BENCHMARKS.md)")
	}
	prefixes := 10_000
	if v := os.Getenv("IPSYNC_NAUTOBOT_BENCH_PREFIXES"); v != "" {
		prefixes, _ = strconv.Atoi(v)
	}
	srv := servertest.Real3(b)
	shell := srv.Shell(b)
	ctx := context.Background()
	c, err := New(Config{Settings: sot.Settings{URL: srv.URL(), Token: srv.Token()}}, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.Bootstrap(ctx); err != nil {
		b.Fatal(err)
	}
	prefix := "fc" + strconv.Itoa(prefixes) + "-"
	owner := resource.Owner("static:" + prefix + "bench")
	objs := benchdata.Site(prefixes, prefix, owner)
	sc := scope.Scope{Owner: owner}
	for _, o := range objs {
		switch o := o.(type) {
		case *resource.Namespace:
			sc.Namespaces = append(sc.Namespaces, o.Name)
		case *resource.VLANGroup:
			sc.VLANGroups = append(sc.VLANGroups, o.Name)
		}
	}
	loadSite(b, c, srv, objs, owner)

	tg := c.Target(sc)
	refresh := func(what string) {
		srv.ResetCounts()
		start := time.Now()
		_, st, err := tg.Refresh(ctx)
		if err != nil {
			b.Fatalf("%s: %v", what, err)
		}
		b.Logf("%s: %.3f s, %d requests, %d objects checked, %d reread, %d missed", what, time.Since(start).Seconds(),
			srv.Requests(http.MethodGet, "/api/"), st.Checked, st.Reread, len(st.Missed))
	}
	for b.Loop() {
		srv.ResetCounts()
		start := time.Now()
		viewState, err := tg.Follow(ctx)
		view := objectsOf(viewState)
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("whole read: %.1f s, %d requests, %d objects", time.Since(start).Seconds(), srv.Requests(http.MethodGet, "/api/"), len(view))
		for i := range 5 {
			refresh("nothing changed #" + strconv.Itoa(i+1))
		}
		var ids []string
		for _, o := range view {
			if o.Kind() == resource.KindIPAddress && len(ids) < 10 {
				ids = append(ids, o.Meta().ID)
			}
		}
		runShell(b, shell, `
from django.utils import timezone
from nautobot.ipam.models import IPAddress
IPAddress.objects.filter(id__in=`+pyList(ids)+`).update(description="no record", last_updated=timezone.now())
`)
		refresh("10 edits with no change record")
		refresh("nothing changed after them")

		// A restart: the view saved as the agent's state file holds it,
		// and a new client following on from it.
		start = time.Now()
		saved, ok, err := tg.Save()
		if err != nil || !ok {
			b.Fatalf("Save: %v, %v", ok, err)
		}
		raw, err := json.Marshal(saved)
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("save the state: %.2f s, %.1f MB", time.Since(start).Seconds(), float64(len(raw))/1e6)
		start = time.Now()
		var back changelog.Saved
		if err := json.Unmarshal(raw, &back); err != nil {
			b.Fatal(err)
		}
		fresh, err := New(Config{Settings: sot.Settings{URL: srv.URL(), Token: srv.Token()}}, slog.New(slog.DiscardHandler))
		if err != nil {
			b.Fatal(err)
		}
		tg = fresh.Target(sc)
		if err := tg.Resume(ctx, back); err != nil {
			b.Fatal(err)
		}
		b.Logf("load the state and resume: %.2f s", time.Since(start).Seconds())
		refresh("first refresh after a restart")
	}
}

func pyList(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = strconv.Quote(id)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// loadSite writes the namespaces and groups of objs through the API and
// loads the rest straight into the database, once.
func loadSite(b *testing.B, c *Client, srv *servertest.Server, objs []resource.Object, owner resource.Owner) {
	ctx := context.Background()
	var page struct {
		Count int `json:"count"`
	}
	if _, err := c.Call(ctx, http.MethodGet, "/api/ipam/ip-addresses/", map[string][]string{"cf_ipsync_owner": {string(owner)}, "limit": {"1"}}, nil, &page); err != nil {
		b.Fatal(err)
	}
	if page.Count > 0 {
		return
	}
	var named, vlans, prefixes, ips []resource.Object
	for _, o := range objs {
		switch o.Kind() {
		case resource.KindNamespace, resource.KindVLANGroup:
			named = append(named, o)
		case resource.KindVLAN:
			vlans = append(vlans, o)
		case resource.KindPrefix:
			prefixes = append(prefixes, o)
		case resource.KindIPAddress:
			ips = append(ips, o)
		}
	}
	if _, err := c.Apply(ctx, creates(named...)); err != nil {
		b.Fatal(err)
	}
	file := map[string]any{"owner": owner, "namespace": named[0].Key().Name, "tag": "managed-by-ipsync", "owner_field": "ipsync_owner", "vni_field": "vni",
		"vlans": vlans, "prefixes": prefixes, "ip_addresses": ips}
	body, err := json.Marshal(file)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "objects.json")
	if err := os.WriteFile(path, body, 0o600); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	cmd := exec.Command("sh", "-c", os.Getenv("IPSYNC_NAUTOBOT_LOAD"))
	cmd.Env = append(os.Environ(), "BENCH_OBJECTS="+path)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "loaded") {
		b.Fatalf("load the site: %v\n%s", err, out)
	}
	b.Logf("loaded %d objects in %.1f s", len(objs), time.Since(start).Seconds())
}
