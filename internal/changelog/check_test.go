package changelog

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/resource"
)

// TestViewCheck: changes the log never names (its entries pruned before
// they were read, or never written) are found by the check of the view
// and read again.
func TestViewCheck(t *testing.T) {
	kinds := map[string]resource.Kind{"ipam.vlan": resource.KindVLAN, "ipam.prefix": resource.KindPrefix}
	at := func(o resource.Object, d time.Duration) resource.Object {
		o = resource.Clone(o)
		o.Meta().Version = t0.Add(d).Format(time.RFC3339Nano)
		return o
	}
	start := []resource.Object{at(vlan("v1", "g", 100, ""), 0), at(vlan("v2", "g", 200, ""), time.Minute),
		at(prefix("p1", "10.0.0.0/24", "g/100"), 0)}
	tests := []struct {
		name   string
		server []resource.Object
		// logged are the VLANs the log names, read before the check.
		logged []string
		missed []string
	}{
		{name: "nothing changed", server: start},
		{name: "an edit with no record",
			server: []resource.Object{at(vlan("v1", "g", 100, "edited"), 2*time.Minute), start[1], start[2]}, missed: []string{"v1"}},
		{name: "a create with no record",
			server: append(slices.Clone(start), at(prefix("p2", "10.0.1.0/24", ""), 3*time.Minute)), missed: []string{"p2"}},
		{name: "the newest VLAN deleted with no record",
			server: []resource.Object{start[0], start[2]}, missed: []string{"v2"}},
		{name: "a renumbering with no record reaches the prefix naming the VLAN",
			server: []resource.Object{at(vlan("v1", "g", 101, ""), 2*time.Minute), start[1], at(prefix("p1", "10.0.0.0/24", "g/101"), 0)}, missed: []string{"v1"}},
		{name: "an edit with no record, then one the log names",
			server: []resource.Object{at(vlan("v1", "g", 100, "edited"), 2*time.Minute), at(vlan("v2", "g", 200, "logged"), 3*time.Minute), start[2]},
			logged: []string{"v2"}, missed: []string{"v1"}},
		{name: "a delete with no record, then an edit the log names",
			server: []resource.Object{at(vlan("v1", "g", 100, "logged"), 3*time.Minute), start[2]},
			logged: []string{"v1"}, missed: []string{"v2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := NewView(start)
			m := &memTarget{objs: map[string]resource.Object{}, asked: map[resource.Kind][]string{}}
			for _, o := range tt.server {
				m.objs[o.Meta().ID] = o
			}
			if len(tt.logged) > 0 {
				ch := Changes{Objects: map[string]map[string]bool{"ipam.vlan": {}}}
				for _, id := range tt.logged {
					ch.Objects["ipam.vlan"][id] = false
				}
				if _, err := v.Update(context.Background(), ch, kinds, m); err != nil {
					t.Fatal(err)
				}
			}
			st, err := v.Check(context.Background(), kinds, m)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ms := range st.Missed {
				got = append(got, ms.ID)
			}
			if !slices.Equal(got, tt.missed) {
				t.Errorf("Check() missed %v, want %v", st.Missed, tt.missed)
			}
			if misses := Compare(v.Objects(), slices.Collect(maps.Values(m.objs))); len(misses) > 0 {
				t.Errorf("view after Check differs from the target: %v", misses)
			}
		})
	}
}
