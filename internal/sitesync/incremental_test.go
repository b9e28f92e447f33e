package sitesync

import (
	"context"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/memory"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// changingNeutron is a fakeNeutron that tells which networks changed, or
// refuses to, as a Neutron with filter validation on does.
type changingNeutron struct {
	fakeNeutron
	changed []string
	refuse  bool
	asked   int
}

func (c *changingNeutron) ChangedNetworks(context.Context, time.Time) ([]string, error) {
	c.asked++
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
		{name: "changed_since", changes: true, wantN2: true},
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
			s := New(Config{Map: neutron.MapConfig{Site: "a11", Namespace: "a11"}, Policy: plan.DefaultPolicy(owner), Notified: tt.notified}, src, store)
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
