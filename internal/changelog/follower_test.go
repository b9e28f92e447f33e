package changelog

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/clock/clocktest"
	"github.com/ipsync/ipsync/internal/resource"
)

// memAdapter is a target in memory with a change log; duringRead runs in
// the middle of a whole read.
type memAdapter struct {
	memLog
	objs       map[string]resource.Object
	duringRead func()
	restored   string // the names Restore was given
}

func (m *memAdapter) ReadWhole(context.Context) ([]resource.Object, Rereader, error) {
	out := slices.Collect(maps.Values(m.objs))
	if m.duringRead != nil {
		m.duringRead()
		m.duringRead = nil
	}
	return out, &memTarget{objs: m.objs, asked: map[resource.Kind][]string{}}, nil
}

func (m *memAdapter) Restore(_ context.Context, names []byte, _ []resource.Object) (Rereader, error) {
	m.restored = string(names)
	return &memTarget{objs: m.objs, asked: map[resource.Kind][]string{}}, nil
}

func (m *memAdapter) Reused() {}

func TestFollowerSweep(t *testing.T) {
	kinds := map[string]resource.Kind{"ipam.vlan": resource.KindVLAN}
	n := 0
	logged := func(m *memAdapter, id string, o resource.Object) {
		n++
		m.objs[id] = o
		m.entries = append(m.entries, Entry{ID: string(rune('a' + n)), Time: t0.Add(time.Duration(n) * time.Second), Type: "ipam.vlan", ObjectID: id})
	}
	tests := []struct {
		name       string
		change     func(m *memAdapter) // between the Follow and the Sweep
		duringRead func(m *memAdapter) // during the Sweep's whole read
		want       []string            // ids missed
	}{
		{name: "a logged change is no miss", change: func(m *memAdapter) { logged(m, "v1", vlan("v1", "g", 100, "edited")) }},
		{name: "an unlogged change is a miss", change: func(m *memAdapter) { m.objs["v1"] = vlan("v1", "g", 100, "unlogged") }, want: []string{"v1"}},
		{name: "an unlogged delete is a miss", change: func(m *memAdapter) { delete(m.objs, "v2") }, want: []string{"v2"}},
		{name: "a change during the sweep's read is no miss", duringRead: func(m *memAdapter) { logged(m, "v1", vlan("v1", "g", 100, "meanwhile")) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &memAdapter{objs: map[string]resource.Object{"v1": vlan("v1", "g", 100, ""), "v2": vlan("v2", "g", 200, "")}}
			f := NewFollower(m, []string{"ipam.vlan"}, kinds, clocktest.New(t0))
			if _, err := f.Follow(context.Background()); err != nil {
				t.Fatal(err)
			}
			if tt.change != nil {
				tt.change(m)
			}
			if tt.duringRead != nil {
				m.duringRead = func() { tt.duringRead(m) }
			}
			_, misses, err := f.Sweep(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ms := range misses {
				got = append(got, ms.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Sweep() missed %v, want %v", misses, tt.want)
			}
		})
	}
}
