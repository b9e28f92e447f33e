package sitesync

import (
	"context"
	"testing"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/memory"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
)

// TestWholeSiteRequestsReadWhatTheyName: a sync of the whole site between
// sweeps, with notifications on, reads of Neutron what the request says
// changed: the networks it names, or all of Neutron when a change could
// not be narrowed to networks, even where Neutron takes changed_since,
// which lists no deletes.
func TestWholeSiteRequestsReadWhatTheyName(t *testing.T) {
	tests := []struct {
		name          string
		req           Request
		changes       bool // the source answers changed_since (naming nothing)
		wantWhole     int
		wantNarrow    int
		wantN2Written bool
	}{
		{name: "nothing named", req: Request{Full: true}},
		{name: "named networks", req: Request{Full: true, Networks: []string{"n2"}}, wantNarrow: 1, wantN2Written: true},
		{name: "named networks, changed_since", req: Request{Full: true, Networks: []string{"n2"}}, changes: true, wantNarrow: 1, wantN2Written: true},
		{name: "unattributed", req: Request{Full: true, NeutronWhole: true}, wantWhole: 1, wantN2Written: true},
		{name: "unattributed, changed_since", req: Request{Full: true, NeutronWhole: true}, changes: true, wantWhole: 1, wantN2Written: true},
		{name: "unattributed without full", req: Request{NeutronWhole: true, Networks: []string{"n1"}}, wantWhole: 1, wantN2Written: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			owner := resource.NeutronOwner("a11")
			store := memory.New(&resource.Namespace{Name: "a11"}, &resource.VLANGroup{Name: "a11-12-network"})
			cn := &changingNeutron{fakeNeutron: fakeNeutron{snap: snapshot("n1")}, refuse: !tt.changes}
			s := newTestSyncer(Config{Map: neutron.MapConfig{Site: "a11", Namespace: "a11"}, Policy: plan.DefaultPolicy(owner), Notified: true}, cn, store)
			if _, err := s.Sync(ctx, Request{Sweep: true}); err != nil {
				t.Fatal(err)
			}
			cn.snap = snapshot("n1", "n2")
			whole, narrow := cn.full, cn.narrow
			out, err := s.Sync(ctx, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if got := cn.full - whole; got != tt.wantWhole {
				t.Errorf("whole reads of Neutron = %d, want %d", got, tt.wantWhole)
			}
			if got := cn.narrow - narrow; got != tt.wantNarrow {
				t.Errorf("reads of networks by id = %d, want %d", got, tt.wantNarrow)
			}
			if got := out.Writes == 3; got != tt.wantN2Written {
				t.Errorf("sync wrote %d objects; want n2's 3 written: %v", out.Writes, tt.wantN2Written)
			}
			if out.Plan == nil {
				t.Error("a sync of the whole site gave no plan of the whole site")
			}
		})
	}
}

// editedTarget is a memory target with a change log: Refresh reports the
// hand edits made since the last one, as a real target's log would.
type editedTarget struct {
	*memory.Store
	unsaved
	edits int
}

func (e *editedTarget) edit(o resource.Object) {
	e.Put(o)
	e.edits++
}

func (e *editedTarget) Requests() int64 { return 0 }

func (e *editedTarget) Follow(ctx context.Context) (reconcile.State, error) {
	e.edits = 0
	return read(ctx, e.Store)
}

func (e *editedTarget) Refresh(ctx context.Context) (reconcile.State, changelog.Stats, error) {
	st, err := read(ctx, e.Store)
	stats := changelog.Stats{Reread: e.edits, Read: e.edits}
	e.edits = 0
	return st, stats, err
}

func (e *editedTarget) RefreshUnchecked(ctx context.Context) (reconcile.State, changelog.Stats, error) {
	return e.Refresh(ctx)
}

func (e *editedTarget) Sweep(ctx context.Context) (reconcile.State, []changelog.Miss, error) {
	st, err := e.Follow(ctx)
	return st, nil, err
}

// TestNarrowedSyncLeavesTargetChangesToBePlanned: a hand edit in the
// target that a sync narrowed to another network read but did not plan is
// put back by the next sync of the whole site, which must not take "no
// change since" for an answer.
func TestNarrowedSyncLeavesTargetChangesToBePlanned(t *testing.T) {
	ctx := context.Background()
	owner := resource.NeutronOwner("a11")
	target := &editedTarget{Store: memory.New(&resource.Namespace{Name: "a11"}, &resource.VLANGroup{Name: "a11-12-network"})}
	src := &fakeNeutron{snap: snapshot("n1", "n2")}
	s := newTestSyncer(Config{Map: neutron.MapConfig{Site: "a11", Namespace: "a11"}, Policy: plan.DefaultPolicy(owner), Notified: true}, src, target)
	if _, err := s.Sync(ctx, Request{}); err != nil {
		t.Fatal(err)
	}
	if out, err := s.Sync(ctx, Request{}); err != nil || !out.Unchanged {
		t.Fatalf("second sync: unchanged %v, err %v; want nothing to plan", out.Unchanged, err)
	}

	var ip *resource.IPAddress
	objs, _ := target.List(ctx)
	for _, o := range objs {
		if a, ok := o.(*resource.IPAddress); ok && a.Address.String() == "192.168.1.10/24" {
			c := *a
			ip = &c
		}
	}
	if ip == nil {
		t.Fatalf("n1's address not written: %v", keys(t, target.Store, owner))
	}
	want := ip.Description
	ip.Description = "edited by hand"
	target.edit(ip)

	// A port of n2 changes status: the notification names n2 alone.
	if out, err := s.Sync(ctx, Request{Networks: []string{"n2"}}); err != nil || out.Writes != 0 {
		t.Fatalf("narrowed sync of n2: %d writes, err %v; want none", out.Writes, err)
	}
	out, err := s.Sync(ctx, Request{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Unchanged || out.Writes != 1 {
		t.Errorf("sync of the whole site after the edit: unchanged %v, %d writes; want the edit put back", out.Unchanged, out.Writes)
	}
	objs, _ = target.List(ctx)
	for _, o := range objs {
		if a, ok := o.(*resource.IPAddress); ok && a.Address == ip.Address && a.Description != want {
			t.Errorf("%s description = %q, want %q", a.Address, a.Description, want)
		}
	}
}
