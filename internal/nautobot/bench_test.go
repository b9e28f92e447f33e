package nautobot

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/nautobot/nautobottest"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// bulkSet is 100k objects the way sites have them: 2% VLANs, 10%
// prefixes (each on a VLAN created in the same run), 88% IP addresses,
// plus the 10 namespaces and 20 VLAN groups they live in.
func bulkSet() []resource.Object { return bulkSetOf(10_000, "", owner) }

// bulkSetOf is bulkSet with the given number of prefixes (a multiple of
// 1,000; the other kinds keep their shares), names of namespaces and
// groups starting with prefix, and owned by o.
func bulkSetOf(prefixes int, prefix string, o resource.Owner) []resource.Object {
	const namespaces, groups = 10, 20
	vlansPerGroup := prefixes / 100
	meta := func() resource.Meta { return resource.Meta{Owner: o} }
	var objs []resource.Object
	for n := range namespaces {
		objs = append(objs, &resource.Namespace{M: meta(), Name: fmt.Sprintf(prefix+"site-%d", n)})
	}
	for g := range groups {
		objs = append(objs, &resource.VLANGroup{M: meta(), Name: fmt.Sprintf(prefix+"leaf-%02d", g)})
		for v := range vlansPerGroup {
			objs = append(objs, &resource.VLAN{M: meta(), Group: fmt.Sprintf(prefix+"leaf-%02d", g), VID: uint16(100 + v), Name: fmt.Sprintf("net-%d-%d", g, v), Status: "Active"})
		}
	}
	var ips []resource.Object
	for i := range prefixes {
		ns := i % namespaces
		k := i / namespaces
		p := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(ns*4 + k/256), byte(k % 256), 0}), 24)
		objs = append(objs, &resource.Prefix{M: meta(), Namespace: fmt.Sprintf(prefix+"site-%d", ns), Prefix: p, Type: resource.PrefixNetwork,
			Status: "Active", VLAN: resource.VLANKey(fmt.Sprintf(prefix+"leaf-%02d", i%groups), uint16(100+(i/groups)%vlansPerGroup))})
		hosts := 9
		if i >= prefixes*4/5 {
			hosts = 8
		}
		for h := range hosts {
			a := p.Addr().As4()
			a[3] = byte(h + 1)
			ips = append(ips, &resource.IPAddress{M: meta(), Namespace: fmt.Sprintf(prefix+"site-%d", ns), Address: netip.PrefixFrom(netip.AddrFrom4(a), 24), Status: "Active"})
		}
	}
	return append(objs, ips...)
}

// BenchmarkApplyCreate100k creates 100k objects through Apply against the
// emulator, then lists them back. Bytes and time include the emulator,
// which runs in the same process.
func BenchmarkApplyCreate100k(b *testing.B) {
	objs := bulkSet()
	changes := creates(objs...)
	ctx := context.Background()
	b.ReportAllocs()
	var writes, reads, listed int
	var applyTime, listTime time.Duration
	for b.Loop() {
		b.StopTimer()
		srv := nautobottest.NewServer()
		c, err := New(Config{URL: srv.URL(), Token: nautobottest.DefaultToken}, slog.New(slog.DiscardHandler), WithHTTPClient(srv.Client()))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Bootstrap(ctx); err != nil {
			b.Fatal(err)
		}
		srv.ResetCounts()
		b.StartTimer()

		start := time.Now()
		res, err := c.Apply(ctx, changes)
		if err != nil {
			b.Fatal(err)
		}
		applied := time.Now()
		before := srv.Requests("GET", "/api/")
		got, err := c.List(ctx, scope.Scope{})
		if err != nil {
			b.Fatal(err)
		}
		applyTime, listTime = applied.Sub(start), time.Since(applied)

		b.StopTimer()
		writes, reads, listed = res.Writes, srv.Requests("GET", "/api/")-before, len(got)
		if res.Written != len(objs) {
			b.Fatalf("wrote %d objects, want %d", res.Written, len(objs))
		}
		if p := plan.Make(objs, got, plan.DefaultPolicy(owner)); len(p.Changes) != 0 {
			b.Fatalf("plan after apply has %d changes", len(p.Changes))
		}
		srv.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(writes), "writes/op")
	b.ReportMetric(float64(reads), "list-reads/op")
	b.ReportMetric(float64(listed), "objects/op")
	b.ReportMetric(applyTime.Seconds(), "apply-s/op")
	b.ReportMetric(listTime.Seconds(), "list-s/op")
}
