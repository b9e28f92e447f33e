package sitesync

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/events"
	"github.com/ipsync/ipsync/internal/memory"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/statefile"
)

// benchNeutron is a site shaped like scripts/neutron-bench-setup.sh's
// largest: per network a VLAN segment on one of three physical networks,
// 5 subnets and 9 ports per subnet; 52 records a network.
func benchNeutron(networks int) *neutron.Snapshot {
	s := &neutron.Snapshot{}
	for n := range networks {
		id := fmt.Sprintf("net-%05d", n)
		s.Networks = append(s.Networks, neutron.Network{ID: id, Name: "bench-" + id, ProjectID: "p1", Segments: []neutron.Segment{
			{NetworkType: "vlan", PhysicalNetwork: benchGroups[n%len(benchGroups)], SegmentationID: 2 + n/len(benchGroups)}}})
		for sub := range 5 {
			third := n*5 + sub
			sid := fmt.Sprintf("%s-sub%d", id, sub)
			cidr := fmt.Sprintf("10.%d.%d.0/24", third/256, third%256)
			s.Subnets = append(s.Subnets, neutron.Subnet{ID: sid, Name: sid, NetworkID: id, CIDR: cidr, ProjectID: "p1"})
			for p := range 9 {
				s.Ports = append(s.Ports, neutron.Port{ID: fmt.Sprintf("%s-p%d", sid, p), NetworkID: id,
					FixedIPs: []neutron.FixedIP{{SubnetID: sid, IPAddress: fmt.Sprintf("10.%d.%d.%d", third/256, third%256, 10+p)}}})
			}
		}
	}
	return s
}

// BenchmarkResumeNeutron measures what a clean restart costs on Neutron's
// side at sites of 10k and 100k records, with the queue's word that it
// kept everything since and 10 networks changed meanwhile: saving the
// state's Neutron part at the stop, loading it, and the first sync after
// (the 10 networks read again, the whole site mapped and planned against
// a target in agreement). A whole read of the real Neutron at 104,005
// records takes ~90 s (BENCHMARKS.md); the queue's verdict is the time
// to read its backlog.
func BenchmarkResumeNeutron(b *testing.B) {
	for _, networks := range []int{200, 2000} {
		snap := benchNeutron(networks)
		b.Run(fmt.Sprintf("records=%d", records(snap)), func(b *testing.B) {
			ctx := context.Background()
			owner := resource.NeutronOwner("bench")
			seed := []resource.Object{&resource.Namespace{Name: "bench"}}
			for _, g := range benchGroups {
				seed = append(seed, &resource.VLANGroup{Name: g})
			}
			store := memory.New(seed...)
			src := &fakeNeutron{snap: snap}
			cfg := Config{Map: neutron.MapConfig{Site: "bench", Namespace: "bench"}, Policy: plan.DefaultPolicy(owner), Notified: true}
			s := newTestSyncer(cfg, src, store)
			if _, err := s.Sync(ctx, Request{Sweep: true}); err != nil {
				b.Fatal(err)
			}
			changed := make([]string, 10)
			for i := range changed {
				changed[i] = snap.Networks[i*len(snap.Networks)/10].ID
			}
			path := filepath.Join(b.TempDir(), "bench.state.json")
			var save, load, first time.Duration
			for b.Loop() {
				t0 := time.Now()
				ns, _ := s.SaveNeutron()
				st := &statefile.State{SavedAt: time.Now(), Neutron: &statefile.Neutron{Snapshot: ns.Snapshot, LastRead: ns.LastRead, Marker: events.Marker{Nonce: "n"}}}
				if err := statefile.Save(path, st); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				loaded, err := statefile.Load(path)
				if err != nil {
					b.Fatal(err)
				}
				resumed := newTestSyncer(cfg, src, store)
				proof := make(chan Proof, 1)
				proof <- Proof{Kept: true, Networks: changed}
				resumed.ResumeNeutron(NeutronState{Snapshot: loaded.Neutron.Snapshot, LastRead: loaded.Neutron.LastRead}, proof)
				t2 := time.Now()
				full, narrow := src.full, src.narrow
				out, err := resumed.Sync(ctx, Request{Full: true})
				if err != nil || out.Writes != 0 || src.full != full || src.narrow != narrow+1 {
					b.Fatalf("first sync after resuming: %v, %d writes, %d whole and %d narrowed reads of Neutron", err, out.Writes, src.full-full, src.narrow-narrow)
				}
				save, load, first = save+t1.Sub(t0), load+t2.Sub(t1), first+time.Since(t2)
			}
			n := float64(b.N)
			b.ReportMetric(save.Seconds()/n, "save-s")
			b.ReportMetric(load.Seconds()/n, "load-s")
			b.ReportMetric(first.Seconds()/n, "first-sync-s")
		})
	}
}
