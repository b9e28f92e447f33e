package sitesync

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/memory"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// TestStandbyKeepsItsViewsForTheTakeover: a standby's syncs read what the
// holder's would and write nothing; on taking the lease over, the agent
// plans on the views they kept, without reading Neutron whole, and
// writes what Neutron changed meanwhile.
func TestStandbyKeepsItsViewsForTheTakeover(t *testing.T) {
	ctx := context.Background()
	owner := resource.NeutronOwner("a11")
	store := memory.New(&resource.Namespace{Name: "a11"}, &resource.VLANGroup{Name: "a11-12-network"})
	target := &quietTarget{Store: store}
	// Neutron's default filter validation: no changed_since.
	src := &changingNeutron{fakeNeutron: fakeNeutron{snap: snapshot("n1")}, refuse: true}
	s := newTestSyncer(Config{Map: neutron.MapConfig{Site: "a11"}, Policy: plan.DefaultPolicy(owner), Notified: true}, src, target)

	steps := []struct {
		name string
		req  Request
		// what the sync reads: Neutron whole and by network, the
		// target whole and with the check of its followed view
		whole, narrow, lists, checks int
	}{
		{name: "the standby starts: both sides read whole", req: Request{Sweep: true, Standby: true}, whole: 1, lists: 1},
		{name: "a notification names n2: Neutron's network read, not the target",
			req: Request{Networks: []string{"n2"}, Standby: true}, narrow: 1},
		{name: "the periodic sync checks the target's view", req: Request{Full: true, Standby: true}, checks: 1},
	}
	for i, st := range steps {
		if i == 1 {
			src.snap = snapshot("n1", "n2")
		}
		before := [4]int{src.full, src.narrow, target.lists, target.checks}
		out, err := s.Sync(ctx, st.req)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got := [4]int{src.full - before[0], src.narrow - before[1], target.lists - before[2], target.checks - before[3]}
		if want := [4]int{st.whole, st.narrow, st.lists, st.checks}; got != want {
			t.Errorf("%s: reads (Neutron whole, by network, target whole, checked) = %v, want %v", st.name, got, want)
		}
		if out.Writes != 0 || out.Plan != nil || len(keys(t, store, owner)) != 0 {
			t.Errorf("%s: the standby wrote %d objects (plan %v); target now %q", st.name, out.Writes, out.Plan != nil, keys(t, store, owner))
		}
	}

	whole := src.full
	out, err := s.Sync(ctx, Request{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	if src.full != whole || out.Whole["neutron"] || out.Whole["target"] {
		t.Errorf("the takeover read whole %v (Neutron %d times); want it to plan on the standby's views", out.Whole, src.full-whole)
	}
	want := []string{"ip_address a11/192.168.1.10", "ip_address a11/192.168.1.11", "ip_address a11/192.168.2.10",
		"prefix a11/192.168.1.0/24", "prefix a11/192.168.2.0/24", "vlan a11-12-network/150", "vlan a11-12-network/151"}
	if got := keys(t, store, owner); !slices.Equal(got, want) || out.Plan == nil {
		t.Errorf("target after the takeover: %q, want %q", got, want)
	}
	// The status page shows the drift after the write: all in agreement.
	for _, r := range out.Drift.Summary {
		if r.Create+r.Update+r.Delete+r.Adopt > 0 || r.Noop == 0 {
			t.Errorf("drift summary after the write: %+v, want the objects in agreement", r)
		}
	}
}

// TestStandbyReadsAGrownScopeAtOnce: a notification whose network maps to
// a VLAN group the scope lacks makes the target a new one, read whole;
// a standby reads it then, so that the takeover still reads nothing whole.
func TestStandbyReadsAGrownScopeAtOnce(t *testing.T) {
	ctx := context.Background()
	owner := resource.NeutronOwner("a11")
	store := memory.New(&resource.Namespace{Name: "a11"}, &resource.VLANGroup{Name: "a11-12-network"}, &resource.VLANGroup{Name: "a11-13-network"})
	var targets []*quietTarget
	rescope := func(scope.Scope) any {
		targets = append(targets, &quietTarget{Store: store})
		return targets[len(targets)-1]
	}
	sc := scope.Site(owner, "a11", []string{"a11-12-network"})
	src := &changingNeutron{fakeNeutron: fakeNeutron{snap: snapshot("n1")}}
	s := newTestSyncer(Config{Map: neutron.MapConfig{Site: "a11"}, Policy: plan.DefaultPolicy(owner), Notified: true, Scope: sc, Rescope: rescopeOf(rescope)},
		src, rescope(sc))
	if _, err := s.Sync(ctx, Request{Sweep: true, Standby: true}); err != nil {
		t.Fatal(err)
	}
	sweptBy := time.Now()
	n, sub, ports := network("n3", "routed", 176, "192.168.3.0/24", "192.168.3.10")
	n.Segments = append(n.Segments, neutron.Segment{NetworkType: "vlan", PhysicalNetwork: "a11-13-network", SegmentationID: 177})
	grown := snapshot("n1")
	grown.Networks, grown.Subnets, grown.Ports = append(grown.Networks, n), append(grown.Subnets, sub), append(grown.Ports, ports...)
	src.snap = grown
	out, err := s.Sync(ctx, Request{Networks: []string{"n3"}, Standby: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(targets) != 2 || targets[1].lists != 1 || !out.Whole["target"] || out.Writes != 0 {
		t.Fatalf("the standby's sync of a network in a new group: %d targets made, the new one read whole %v, %d writes; want it read whole now, nothing written",
			len(targets), out.Whole["target"], out.Writes)
	}
	out, err = s.Sync(ctx, Request{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	if out.Whole["neutron"] || out.Whole["target"] || out.Writes == 0 {
		t.Errorf("the takeover read whole %v and wrote %d; want n3's objects written on the views the standby kept", out.Whole, out.Writes)
	}
	// changed_since still asks from the last sync of the whole site, the
	// sweep: the narrowed sync between read n3 alone.
	if want := sweptBy.Add(-changelog.Overlap); src.asked == 0 || !src.since.Before(want) {
		t.Errorf("changed_since asked %d times, last since %v; want it from the sweep, before %v", src.asked, src.since, want)
	}
}
