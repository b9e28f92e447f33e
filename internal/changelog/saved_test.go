package changelog

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/clock/clocktest"
	"github.com/ipsync/ipsync/internal/resource"
)

// TestFollowerResume: a follower saved, written out and read back by a
// new process follows on from where the old one stopped, reading nothing
// whole, and distrusts the log as the old one would have.
func TestFollowerResume(t *testing.T) {
	kinds := map[string]resource.Kind{"ipam.vlan": resource.KindVLAN}
	types := []string{"ipam.vlan"}
	tests := []struct {
		name      string
		stopped   func(m *memAdapter) // while no follower runs
		wait      time.Duration
		untrusted bool
	}{
		{name: "changes while stopped are followed", stopped: func(m *memAdapter) {
			m.objs["v1"] = vlan("v1", "g", 100, "while stopped")
			delete(m.objs, "v2")
			m.entries = append(m.entries, entry("e3", 3*time.Second, "ipam.vlan", "v1", false), entry("e4", 4*time.Second, "ipam.vlan", "v2", true))
		}},
		{name: "nothing changed"},
		{name: "the log pruned while stopped", stopped: func(m *memAdapter) { m.entries = nil }, untrusted: true},
		{name: "stopped longer than MaxGap", wait: MaxGap + time.Minute, untrusted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			m := &memAdapter{objs: map[string]resource.Object{"v1": vlan("v1", "g", 100, ""), "v2": vlan("v2", "g", 200, "")},
				memLog: memLog{entries: []Entry{entry("e1", 0, "ipam.vlan", "v1", false), entry("e2", time.Second, "ipam.vlan", "v2", false)}}}
			clk := clocktest.New(t0)
			old := NewFollower(m, types, kinds, clk)
			if _, err := old.Follow(ctx); err != nil {
				t.Fatal(err)
			}
			saved, ok, err := old.Save()
			if err != nil || !ok {
				t.Fatalf("Save() = %v, %v", ok, err)
			}
			raw, err := json.Marshal(saved)
			if err != nil {
				t.Fatal(err)
			}
			if tt.stopped != nil {
				tt.stopped(m)
			}
			clk.Advance(tt.wait)
			var back Saved
			if err := json.Unmarshal(raw, &back); err != nil {
				t.Fatal(err)
			}
			resumed := NewFollower(m, types, kinds, clk)
			if err := resumed.Resume(ctx, back); err != nil {
				t.Fatal(err)
			}
			if m.restored != `{"names":"as read"}` {
				t.Errorf("the adapter got names %q back", m.restored)
			}
			view, _, err := resumed.Refresh(ctx)
			if _, untrusted := errors.AsType[*UntrustedError](err); untrusted != tt.untrusted || err != nil && !untrusted {
				t.Fatalf("Refresh after Resume: %v, want untrusted %v", err, tt.untrusted)
			}
			if tt.untrusted {
				return
			}
			if misses := Compare(view, slices.Collect(maps.Values(m.objs))); len(misses) > 0 {
				t.Errorf("the resumed view differs from the target: %v", misses)
			}
		})
	}
}

// A follower with nothing followed has nothing to save.
func TestFollowerSaveBeforeFollow(t *testing.T) {
	f := NewFollower(&memAdapter{objs: map[string]resource.Object{}}, nil, nil, clocktest.New(t0))
	if _, ok, err := f.Save(); ok || err != nil {
		t.Errorf("Save() before Follow = %v, %v; want nothing to save", ok, err)
	}
}
