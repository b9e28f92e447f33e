package sitesync

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/memory"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
)

// changingNeutron is a fakeNeutron that tells which networks changed, or
// refuses to, as a Neutron with filter validation on does.
type changingNeutron struct {
	fakeNeutron
	changed []string
	refuse  bool
	asked   int
	since   time.Time // the last question's
}

func (c *changingNeutron) ChangedNetworks(_ context.Context, since time.Time) ([]string, error) {
	c.asked++
	c.since = since
	if c.refuse {
		return nil, neutron.ErrNoChangeFilter
	}
	return c.changed, nil
}

// TestSyncOfTheWholeSiteReadsNeutronByChanges: a sync of the whole site
// between sweeps reads of Neutron only what changed_since names, nothing
// when notifications tell of changes, and all of it otherwise; a sweep
// counts what the notifications never told of.
func TestSyncOfTheWholeSiteReadsNeutronByChanges(t *testing.T) {
	tests := []struct {
		name       string
		notified   bool
		changes    bool // the source answers changed_since
		refuse     bool
		wantWhole  int  // whole reads of Neutron after the first sweep, before the second
		wantN2     bool // n2, added to Neutron without a notification, written by the periodic sync
		wantMissed bool // the second sweep counts n2's objects as missed
	}{
		{name: "notified", notified: true, wantMissed: true},
		{name: "notified, changed_since", notified: true, changes: true, wantN2: true},
		// changed_since lists no deletes: alone, it cannot tell them.
		{name: "changed_since, not notified", changes: true, wantWhole: 1, wantN2: true},
		{name: "changed_since refused, notified", changes: true, refuse: true, notified: true, wantMissed: true},
		{name: "changed_since refused, not notified", changes: true, refuse: true, wantWhole: 1, wantN2: true},
		{name: "neither", wantWhole: 1, wantN2: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			owner := resource.NeutronOwner("a11")
			store := memory.New(&resource.Namespace{Name: "a11"}, &resource.VLANGroup{Name: "a11-12-network"})
			cn := &changingNeutron{fakeNeutron: fakeNeutron{snap: snapshot("n1")}, changed: []string{"n2"}, refuse: tt.refuse}
			var src Source = &cn.fakeNeutron
			if tt.changes {
				src = cn
			}
			s := newTestSyncer(Config{Map: neutron.MapConfig{Site: "a11", Namespace: "a11"}, Policy: plan.DefaultPolicy(owner), Notified: tt.notified}, src, store)
			if _, err := s.Sync(ctx, Request{}); err != nil {
				t.Fatal(err)
			}
			cn.snap = snapshot("n1", "n2")
			whole := cn.full
			out, err := s.Sync(ctx, Request{})
			if err != nil {
				t.Fatal(err)
			}
			if got := cn.full - whole; got != tt.wantWhole {
				t.Errorf("whole reads of Neutron in the periodic sync = %d, want %d", got, tt.wantWhole)
			}
			if got := out.Writes > 0; got != tt.wantN2 {
				t.Errorf("periodic sync wrote %d objects; want n2's written %v", out.Writes, tt.wantN2)
			}
			out, err = s.Sync(ctx, Request{Sweep: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(out.Misses["neutron"]) > 0; got != tt.wantMissed {
				t.Errorf("sweep misses %q; want some %v", out.Misses["neutron"], tt.wantMissed)
			}
			if !out.Whole["neutron"] {
				t.Error("the sweep did not read Neutron whole")
			}
		})
	}
}

// quietTarget is a target whose change log never names a change.
type quietTarget struct {
	*memory.Store
	unsaved
	lists int
	// checks counts the refreshes that checked the view.
	checks int
}

// unsaved is a Follower's Save and Resume for test targets that keep no
// state to resume from.
type unsaved struct{}

func (unsaved) Save() (changelog.Saved, bool, error) { return changelog.Saved{}, false, nil }
func (unsaved) Resume(context.Context, changelog.Saved) error {
	return errors.New("this test target cannot resume")
}

// The fakes are Followers.
var (
	_ Follower = (*quietTarget)(nil)
	_ Follower = (*editedTarget)(nil)
)

// read is a read of the store whole, as a State.
func read(ctx context.Context, l reconcile.Lister) (reconcile.State, error) {
	return reconcile.Stateless(l).Read(ctx)
}

func (q *quietTarget) List(ctx context.Context) ([]resource.Object, error) {
	q.lists++
	return q.Store.List(ctx)
}
func (q *quietTarget) Requests() int64                                     { return 0 }
func (q *quietTarget) Follow(ctx context.Context) (reconcile.State, error) { return read(ctx, q) }
func (q *quietTarget) Refresh(ctx context.Context) (reconcile.State, changelog.Stats, error) {
	q.checks++
	return q.RefreshUnchecked(ctx)
}
func (q *quietTarget) RefreshUnchecked(ctx context.Context) (reconcile.State, changelog.Stats, error) {
	st, err := read(ctx, q.Store)
	return st, changelog.Stats{}, err
}
func (q *quietTarget) Sweep(ctx context.Context) (reconcile.State, []changelog.Miss, error) {
	st, err := read(ctx, q)
	return st, nil, err
}

// TestNothingChangedPlansNothing: with neither side changed since a sync
// that succeeded, a sync of the whole site reads and plans nothing more;
// a failed sync, a sweep or an event plans again.
func TestNothingChangedPlansNothing(t *testing.T) {
	ctx := context.Background()
	owner := resource.NeutronOwner("a11")
	target := &quietTarget{Store: memory.New(&resource.Namespace{Name: "a11"}, &resource.VLANGroup{Name: "a11-12-network"})}
	src := &fakeNeutron{snap: snapshot("n1")}
	s := newTestSyncer(Config{Map: neutron.MapConfig{Site: "a11", Namespace: "a11"}, Policy: plan.DefaultPolicy(owner), Notified: true}, src, target)
	steps := []struct {
		name          string
		req           Request
		fail          bool
		wantUnchanged bool
	}{
		{name: "first sync", req: Request{}},
		{name: "nothing changed", req: Request{}, wantUnchanged: true},
		{name: "nothing changed again", req: Request{}, wantUnchanged: true},
		{name: "an event", req: Request{Networks: []string{"n1"}}},
		{name: "a failed sync", req: Request{Networks: []string{"n1"}}, fail: true},
		{name: "after a failure", req: Request{}},
		{name: "a sweep", req: Request{Sweep: true}},
		{name: "after the sweep", req: Request{}, wantUnchanged: true},
	}
	for _, st := range steps {
		src.err = nil
		if st.fail {
			src.err = errors.New("neutron down")
		}
		out, err := s.Sync(ctx, st.req)
		if (err != nil) != st.fail {
			t.Fatalf("%s: Sync() error = %v", st.name, err)
		}
		if out.Unchanged != st.wantUnchanged || (out.Unchanged && out.Plan != nil) {
			t.Errorf("%s: Unchanged = %v (plan %v), want %v", st.name, out.Unchanged, out.Plan != nil, st.wantUnchanged)
		}
	}
}

// TestNarrowedSyncLeavesTheCheckToTheCycle: the followed view is checked
// once a cycle, by the sync of the whole site; a sync narrowed to the
// networks of a notification follows the log alone.
func TestNarrowedSyncLeavesTheCheckToTheCycle(t *testing.T) {
	ctx := context.Background()
	owner := resource.NeutronOwner("a11")
	target := &quietTarget{Store: memory.New(&resource.Namespace{Name: "a11"}, &resource.VLANGroup{Name: "a11-12-network"})}
	s := newTestSyncer(Config{Map: neutron.MapConfig{Site: "a11", Namespace: "a11"}, Policy: plan.DefaultPolicy(owner), Notified: true},
		&fakeNeutron{snap: snapshot("n1")}, target)
	steps := []struct {
		name      string
		req       Request
		wantCheck bool
	}{
		{name: "first sync, a whole read", req: Request{}},
		{name: "an event", req: Request{Networks: []string{"n1"}}},
		{name: "another event", req: Request{Networks: []string{"n1"}}},
		{name: "the periodic sync", req: Request{}, wantCheck: true},
		{name: "an event naming no network", req: Request{Full: true, NeutronWhole: true}, wantCheck: true},
	}
	for _, st := range steps {
		before := target.checks
		if _, err := s.Sync(ctx, st.req); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := target.checks > before; got != st.wantCheck {
			t.Errorf("%s: checked the view %v, want %v", st.name, got, st.wantCheck)
		}
	}
}
