package neutron

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

func TestRealSegmentRanges(t *testing.T) {
	a, r := realReader(t)
	run := newRunID()
	ctx := context.Background()
	w := NewRangeWriter(r, RangeConfig{Site: "it"}, discard())
	// Delete whatever this run left behind, even after a failure.
	t.Cleanup(func() {
		objs, err := w.List(ctx)
		if err != nil {
			t.Errorf("cleanup: %v", err)
			return
		}
		for _, o := range objs {
			if strings.HasPrefix(o.Key().Name, run.name) {
				a.remove(rangesPath, o.Meta().ID)
			}
		}
	})
	me := resource.StaticOwner("it-spec")

	find := func(name string) *resource.SegmentRange {
		t.Helper()
		objs, err := w.List(ctx)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		for _, o := range objs {
			if o.Key().Name == name {
				return o.(*resource.SegmentRange)
			}
		}
		return nil
	}
	apply := func(changes ...plan.Change) error {
		t.Helper()
		n, err := w.Apply(ctx, changes)
		if err == nil && n != len(changes) {
			t.Errorf("Apply wrote %d of %d changes", n, len(changes))
		}
		return err
	}

	vlan := &resource.SegmentRange{M: resource.Meta{Owner: me}, Name: run.name + "-a11-12", Site: "it",
		NetworkType: resource.NetworkVLAN, PhysicalNetwork: "a11-12-network", Minimum: 150, Maximum: 160, Shared: true,
		Description: "tenant VLANs of leaf pair 11-12"}

	t.Run("create", func(t *testing.T) {
		if err := apply(plan.Change{Action: plan.Create, Key: vlan.Key(), Desired: vlan}); err != nil {
			t.Fatalf("create: %v", err)
		}
		got := find(vlan.Name)
		if got == nil {
			t.Fatalf("created range %s is not listed", vlan.Name)
		}
		if d := vlan.Diff(got); d != nil || got.M.Owner != me || got.M.ID == "" || got.M.Version == "" {
			t.Errorf("listed range %+v: diff %v, want no diff, owner %s, an id and a version", got, d, me)
		}
	})

	t.Run("default ranges are not listed", func(t *testing.T) {
		s, err := r.Read(ctx)
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		defaults := map[string]bool{}
		for _, sr := range s.Ranges {
			if sr.Default {
				defaults[sr.ID] = true
			}
		}
		if len(defaults) == 0 {
			t.Errorf("Read found no default ranges, want those of the ML2 config")
		}
		objs, err := w.List(ctx)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		for _, o := range objs {
			if defaults[o.Meta().ID] {
				t.Errorf("List has default range %s", o.Meta().ID)
			}
		}
	})

	t.Run("update checks the revision", func(t *testing.T) {
		cur := find(vlan.Name)
		wider := resource.Clone(vlan).(*resource.SegmentRange)
		wider.Maximum = 170
		if err := apply(plan.Change{Action: plan.Update, Key: wider.Key(), Desired: wider, Current: cur, Fields: wider.Diff(cur)}); err != nil {
			t.Fatalf("update: %v", err)
		}
		now := find(vlan.Name)
		if now.Maximum != 170 || now.M.Version == cur.M.Version {
			t.Errorf("after update: maximum %d version %s, want 170 and a version other than %s", now.Maximum, now.M.Version, cur.M.Version)
		}
		// The same change planned against the old revision is refused.
		err := apply(plan.Change{Action: plan.Update, Key: wider.Key(), Desired: wider, Current: cur, Fields: wider.Diff(cur)})
		if !errors.Is(err, ErrMoved) {
			t.Errorf("update with stale revision %s: error %v, want ErrMoved", cur.M.Version, err)
		}
		moved := resource.Clone(wider).(*resource.SegmentRange)
		moved.PhysicalNetwork = "a11-13-network"
		err = apply(plan.Change{Action: plan.Update, Key: moved.Key(), Desired: moved, Current: now, Fields: moved.Diff(now)})
		if err == nil || errors.Is(err, ErrMoved) {
			t.Errorf("update of physical_network: error %v, want a refusal", err)
		}
		if got := find(vlan.Name); got.PhysicalNetwork != "a11-12-network" {
			t.Errorf("physical_network after refused update = %s", got.PhysicalNetwork)
		}
	})

	t.Run("adopt marks an unmarked range and keeps its other tags", func(t *testing.T) {
		var out map[string]map[string]any
		a.call(http.MethodPost, "/"+rangesPath, map[string]any{"network_segment_range": map[string]any{
			"name": run.name + "-vxlan", "network_type": "vxlan", "minimum": 5000, "maximum": 5999, "shared": true}}, &out)
		id := str(out["network_segment_range"], "id")
		a.call(http.MethodPut, "/"+rangesPath+"/"+id+"/tags/keep-me", nil, nil)
		cur := find(run.name + "-vxlan")
		if cur == nil || cur.M.Owner != "" {
			t.Fatalf("hand-made range = %+v, want it listed without owner", cur)
		}
		want := &resource.SegmentRange{M: resource.Meta{Owner: me}, Name: run.name + "-vxlan", Site: "it",
			NetworkType: resource.NetworkVXLAN, Minimum: 5000, Maximum: 6999, Shared: true, Description: "site VNIs"}
		if err := apply(plan.Change{Action: plan.Adopt, Key: want.Key(), Desired: want, Current: cur, Fields: want.Diff(cur)}); err != nil {
			t.Fatalf("adopt: %v", err)
		}
		got := find(want.Name)
		if d := want.Diff(got); d != nil || got.M.Owner != me {
			t.Errorf("adopted range: diff %v, owner %q; want no diff and owner %s", d, got.M.Owner, me)
		}
		s, err := r.Read(ctx)
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		for _, sr := range s.Ranges {
			if sr.ID == id && !slices.Contains(sr.Tags, "keep-me") {
				t.Errorf("adopted range tags = %v, want keep-me kept", sr.Tags)
			}
		}
	})

	t.Run("delete checks the revision and tolerates a range already gone", func(t *testing.T) {
		cur := find(vlan.Name)
		stale := resource.Clone(cur).(*resource.SegmentRange)
		stale.M.Version = "0"
		if err := apply(plan.Change{Action: plan.Delete, Key: stale.Key(), Current: stale}); !errors.Is(err, ErrMoved) {
			t.Errorf("delete with stale revision: error %v, want ErrMoved", err)
		}
		if err := apply(plan.Change{Action: plan.Delete, Key: cur.Key(), Current: cur}); err != nil {
			t.Fatalf("delete: %v", err)
		}
		if got := find(vlan.Name); got != nil {
			t.Errorf("deleted range is still listed: %+v", got)
		}
		if err := apply(plan.Change{Action: plan.Delete, Key: cur.Key(), Current: cur}); err != nil {
			t.Errorf("delete of a range already gone: %v", err)
		}
	})

	t.Run("refused writes leave nothing behind", func(t *testing.T) {
		bad := &resource.SegmentRange{M: resource.Meta{Owner: me}, Name: run.name + "-bad", Site: "it",
			NetworkType: resource.NetworkVLAN, PhysicalNetwork: "a11-12-network", Minimum: 100, Maximum: 5000, Shared: true}
		other := resource.Clone(bad).(*resource.SegmentRange)
		other.Name, other.Site, other.Maximum = run.name+"-other", "b22", 110
		for _, c := range []plan.Change{
			{Action: plan.Create, Key: bad.Key(), Desired: bad},
			{Action: plan.Create, Key: other.Key(), Desired: other},
			{Action: plan.Create, Key: resource.Key{Kind: resource.KindVLAN, Name: "g/1"}, Desired: &resource.VLAN{Group: "g", VID: 1}},
		} {
			if err := apply(c); err == nil {
				t.Errorf("%s %s: no error", c.Action, c.Key)
			}
			if got := find(c.Key.Name); got != nil {
				t.Errorf("refused %s left range %+v", c.Key, got)
			}
		}
	})
}
