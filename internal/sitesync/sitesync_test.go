package sitesync

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/memory"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// fakeNeutron serves a snapshot and counts how it was read.
type fakeNeutron struct {
	snap         *neutron.Snapshot
	full, narrow int
	err          error
}

func (f *fakeNeutron) Read(context.Context) (*neutron.Snapshot, error) {
	f.full++
	return f.snap, f.err
}

// ChangedNetworks is refused: the fake keeps no time of changes.
func (f *fakeNeutron) ChangedNetworks(context.Context, time.Time) ([]string, error) {
	return nil, neutron.ErrNoChangeFilter
}

func (f *fakeNeutron) Requests() int64 { return 0 }

// newTestSyncer is New with t as the tests hand targets: a target, or a
// lister read whole (a memory store), followed where it is a Follower.
func newTestSyncer(cfg Config, src Source, t any) *Syncer {
	target, f := targetOf(t)
	return New(cfg, src, target, f)
}

func targetOf(t any) (reconcile.Target, Follower) {
	f, _ := t.(Follower)
	switch x := t.(type) {
	case reconcile.Target:
		return x, f
	case reconcile.Lister:
		return reconcile.Stateless(x), f
	}
	panic(fmt.Sprintf("%T is no target", t))
}

// rescopeOf is a test's rescope as Config.Rescope takes it.
func rescopeOf[T any](rescope func(scope.Scope) T) func(scope.Scope) (reconcile.Target, Follower) {
	return func(sc scope.Scope) (reconcile.Target, Follower) { return targetOf(rescope(sc)) }
}

func (f *fakeNeutron) ReadNetworks(_ context.Context, ids []string) (*neutron.Snapshot, error) {
	f.narrow++
	if f.err != nil {
		return nil, f.err
	}
	return only(f.snap, ids), nil
}

func network(id, name string, vid int, cidr string, ips ...string) (neutron.Network, neutron.Subnet, []neutron.Port) {
	n := neutron.Network{ID: id, Name: name, Segments: []neutron.Segment{{NetworkType: "vlan", PhysicalNetwork: "a11-12-network", SegmentationID: vid}}}
	sub := neutron.Subnet{ID: id + "-sub", NetworkID: id, CIDR: cidr, Name: name + "-subnet"}
	var ports []neutron.Port
	for i, ip := range ips {
		ports = append(ports, neutron.Port{ID: id + "-port" + string(rune('a'+i)), NetworkID: id, FixedIPs: []neutron.FixedIP{{SubnetID: sub.ID, IPAddress: ip}}})
	}
	return n, sub, ports
}

func snapshot(nets ...string) *neutron.Snapshot {
	all := map[string]func() (neutron.Network, neutron.Subnet, []neutron.Port){
		"n1": func() (neutron.Network, neutron.Subnet, []neutron.Port) {
			return network("n1", "tenant-1", 150, "192.168.1.0/24", "192.168.1.10", "192.168.1.11")
		},
		"n2": func() (neutron.Network, neutron.Subnet, []neutron.Port) {
			return network("n2", "tenant-2", 151, "192.168.2.0/24", "192.168.2.10")
		},
	}
	s := &neutron.Snapshot{}
	for _, id := range nets {
		n, sub, ports := all[id]()
		s.Networks = append(s.Networks, n)
		s.Subnets = append(s.Subnets, sub)
		s.Ports = append(s.Ports, ports...)
	}
	return s
}

func keys(t *testing.T, st *memory.Store, owner resource.Owner) []string {
	t.Helper()
	objs, _ := st.List(context.Background())
	var out []string
	for _, o := range objs {
		if o.Meta().Owner == owner {
			out = append(out, o.Key().String())
		}
	}
	slices.Sort(out)
	return out
}

func TestFullThenNarrowed(t *testing.T) {
	ctx := context.Background()
	owner := resource.NeutronOwner("a11")
	store := memory.New(&resource.Namespace{Name: "a11"}, &resource.VLANGroup{Name: "a11-12-network"})
	src := &fakeNeutron{snap: snapshot("n1", "n2")}
	pol := plan.DefaultPolicy(owner)
	s := newTestSyncer(Config{Map: neutron.MapConfig{Site: "a11"}, Policy: pol}, src, store)

	out, err := s.Sync(ctx, Request{})
	if err != nil {
		t.Fatalf("full sync: %v", err)
	}
	if out.Writes != 7 { // 2 VLANs, 2 prefixes, 3 IPs
		t.Fatalf("full sync wrote %d, want 7 (%v)", out.Writes, keys(t, store, owner))
	}

	// n1 is deleted in Neutron; the notification names it.
	src.snap = snapshot("n2")
	out, err = s.Sync(ctx, Request{Networks: []string{"n1"}})
	if err != nil {
		t.Fatalf("narrowed sync: %v", err)
	}
	if src.narrow != 1 || src.full != 1 {
		t.Errorf("reads: %d full, %d narrowed; want 1 and 1", src.full, src.narrow)
	}
	want := []string{"ip_address a11/192.168.2.10", "prefix a11/192.168.2.0/24", "vlan a11-12-network/151"}
	if got := keys(t, store, owner); !slices.Equal(got, want) {
		t.Errorf("after deleting n1: %q, want %q", got, want)
	}
	if out.Writes != 4 {
		t.Errorf("narrowed sync wrote %d, want 4 deletes", out.Writes)
	}

	// A narrowed sync of an unchanged network writes nothing.
	if out, err := s.Sync(ctx, Request{Networks: []string{"n2"}}); err != nil || out.Writes != 0 {
		t.Errorf("unchanged narrowed sync = %d writes, %v", out.Writes, err)
	}
}

func TestUnreachableSidesDeleteNothing(t *testing.T) {
	ctx := context.Background()
	owner := resource.NeutronOwner("a11")
	store := memory.New(&resource.Namespace{Name: "a11"}, &resource.VLANGroup{Name: "a11-12-network"})
	src := &fakeNeutron{snap: snapshot("n1")}
	s := newTestSyncer(Config{Map: neutron.MapConfig{Site: "a11"}, Policy: plan.DefaultPolicy(owner)}, src, store)
	if _, err := s.Sync(ctx, Request{}); err != nil {
		t.Fatal(err)
	}
	before := keys(t, store, owner)
	src.err = errors.New("connection refused")
	_, err := s.Sync(ctx, Request{})
	var ue *UnreachableError
	if !errors.As(err, &ue) || ue.Side != "neutron" {
		t.Errorf("Sync with Neutron down = %v, want neutron unreachable", err)
	}
	if got := keys(t, store, owner); !slices.Equal(got, before) {
		t.Errorf("objects changed while Neutron was down: %q -> %q", before, got)
	}
}

// What the README and the leaks say is synced is what is synced: a VLAN
// segment without ports keeps its VLAN (Neutron holds the VID), a segment
// whose group Nautobot lacks loses its VLAN but not its prefix and IPs.
func TestLeaksSayWhatIsSynced(t *testing.T) {
	owner := resource.NeutronOwner("a11")
	tests := []struct {
		name     string
		store    *memory.Store
		snap     *neutron.Snapshot
		want     []string
		leakSays string
	}{
		{"VLAN group missing", memory.New(&resource.Namespace{Name: "a11"}), snapshot("n1"),
			[]string{"ip_address a11/192.168.1.10", "ip_address a11/192.168.1.11", "prefix a11/192.168.1.0/24"}, "its VLAN is not synced"},
		{"VLAN segment without ports", memory.New(&resource.Namespace{Name: "a11"}, &resource.VLANGroup{Name: "a11-12-network"}),
			&neutron.Snapshot{Networks: snapshot("n1").Networks, Subnets: snapshot("n1").Subnets},
			[]string{"prefix a11/192.168.1.0/24", "vlan a11-12-network/150"}, "its VLAN is synced"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestSyncer(Config{Map: neutron.MapConfig{Site: "a11"}, Policy: plan.DefaultPolicy(owner)}, &fakeNeutron{snap: tt.snap}, tt.store)
			out, err := s.Sync(context.Background(), Request{})
			if err != nil {
				t.Fatal(err)
			}
			if got := keys(t, tt.store, owner); !slices.Equal(got, tt.want) {
				t.Errorf("synced %q, want %q", got, tt.want)
			}
			if len(out.Drift.Leaks) != 1 || !strings.Contains(out.Drift.Leaks[0].Message, tt.leakSays) {
				t.Errorf("leaks = %+v, want one saying %q", out.Drift.Leaks, tt.leakSays)
			}
		})
	}
}

// only is the part of s that belongs to the networks ids, as Neutron
// answers a read of those networks.
func only(s *neutron.Snapshot, ids []string) *neutron.Snapshot {
	in := set(ids)
	return &neutron.Snapshot{
		Networks: filter(s.Networks, func(n neutron.Network) bool { return in[n.ID] }),
		Segments: filter(s.Segments, func(x neutron.Segment) bool { return in[x.NetworkID] }),
		Subnets:  filter(s.Subnets, func(x neutron.Subnet) bool { return in[x.NetworkID] }),
		Ports:    filter(s.Ports, func(x neutron.Port) bool { return in[x.NetworkID] }),
		Ranges:   s.Ranges,
	}
}
