package changelog

import (
	"context"
	"errors"
	"maps"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/clock/clocktest"
	"github.com/ipsync/ipsync/internal/resource"
)

// memLog is a change log in memory; entries become visible when committed.
// reads are the times Since was asked from.
type memLog struct {
	entries []Entry
	reads   []time.Time
}

func (l *memLog) Newest(_ context.Context, types []string) (Entry, bool, error) {
	var out Entry
	ok := false
	for _, e := range l.entries {
		if slices.Contains(types, e.Type) && (!ok || e.Time.After(out.Time)) {
			out, ok = e, true
		}
	}
	return out, ok, nil
}

func (l *memLog) Since(_ context.Context, types []string, t time.Time) ([]Entry, error) {
	l.reads = append(l.reads, t)
	var out []Entry
	for _, e := range l.entries {
		if slices.Contains(types, e.Type) && !e.Time.Before(t) {
			out = append(out, e)
		}
	}
	return out, nil
}

func (l *memLog) Count(_ context.Context, types []string, from, to time.Time, deletes bool) (int, error) {
	n := 0
	for _, e := range l.entries {
		if slices.Contains(types, e.Type) && !e.Time.Before(from) && e.Time.Before(to) && (e.Deleted || !deletes) {
			n++
		}
	}
	return n, nil
}

var t0 = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)

func entry(id string, at time.Duration, typ, obj string, deleted bool) Entry {
	return Entry{ID: id, Time: t0.Add(at), Type: typ, ObjectID: obj, Deleted: deleted}
}

func versioned(e Entry, v string) Entry {
	e.Version = v
	return e
}

func TestCursor(t *testing.T) {
	types := []string{"ipam.vlan", "ipam.prefix"}
	tests := []struct {
		name      string
		before    []Entry       // in the log at Start
		after     []Entry       // committed before Next
		wait      time.Duration // on our clock between Start and Next
		want      map[string]map[string]bool
		untrusted bool
	}{
		{name: "nothing changed", before: []Entry{entry("e1", 0, "ipam.vlan", "v1", false)}, want: map[string]map[string]bool{}},
		{name: "empty log, then a create", after: []Entry{entry("e1", 0, "ipam.vlan", "v1", false)},
			want: map[string]map[string]bool{"ipam.vlan": {"v1": false}}},
		{name: "update then delete is a delete",
			before: []Entry{entry("e1", 0, "ipam.vlan", "v1", false)},
			after:  []Entry{entry("e2", time.Second, "ipam.prefix", "p1", false), entry("e3", 2*time.Second, "ipam.prefix", "p1", true)},
			want:   map[string]map[string]bool{"ipam.prefix": {"p1": true}}},
		{name: "other types are not asked for",
			before: []Entry{entry("e1", 0, "ipam.vlan", "v1", false)},
			after:  []Entry{entry("e2", time.Second, "dcim.device", "d1", false)},
			want:   map[string]map[string]bool{}},
		{name: "a late commit within the overlap",
			before: []Entry{entry("e1", 0, "ipam.vlan", "v1", false)},
			after:  []Entry{entry("e2", -time.Minute, "ipam.vlan", "v2", false)},
			want:   map[string]map[string]bool{"ipam.vlan": {"v2": false}}},
		{name: "a commit lagging half the overlap", before: []Entry{entry("e1", 0, "ipam.vlan", "v1", false)},
			after: []Entry{entry("e2", -Overlap/2-time.Second, "ipam.vlan", "v2", false)}, untrusted: true},
		{name: "a gap beyond MaxGap", before: []Entry{entry("e1", 0, "ipam.vlan", "v1", false)}, wait: MaxGap + time.Minute, untrusted: true},
		// Nautobot rewrites the record of an object that one change
		// context changes again: same id and time, new data and action.
		{name: "a record rewritten in place",
			before: []Entry{versioned(entry("e1", 0, "ipam.vlan", "v1", false), "update:1")},
			after:  []Entry{versioned(entry("e1", 0, "ipam.vlan", "v1", false), "update:2")},
			want:   map[string]map[string]bool{"ipam.vlan": {"v1": false}}},
		{name: "a record rewritten from update to delete",
			before: []Entry{versioned(entry("e1", 0, "ipam.vlan", "v1", false), "update:1")},
			after:  []Entry{versioned(entry("e1", 0, "ipam.vlan", "v1", true), "delete:1")},
			want:   map[string]map[string]bool{"ipam.vlan": {"v1": true}}},
		{name: "a record rewritten long after its time, within Recent",
			before: []Entry{versioned(entry("e1", 0, "ipam.vlan", "v1", false), "update:1"), entry("e2", Recent-time.Second, "ipam.vlan", "v2", false)},
			after:  []Entry{versioned(entry("e1", 0, "ipam.vlan", "v1", false), "update:2")},
			want:   map[string]map[string]bool{"ipam.vlan": {"v1": false}}},
		// Further back the overlap is counted: a rewrite into a delete
		// changes its count of deletes; another update does not, and is
		// the check of the view's to find, by the object's stamp.
		{name: "a record rewritten to a delete long after its time, within the overlap",
			before: []Entry{versioned(entry("e1", 0, "ipam.vlan", "v1", false), "update:1"), entry("e2", 8*time.Minute, "ipam.vlan", "v2", false)},
			after:  []Entry{versioned(entry("e1", 0, "ipam.vlan", "v1", true), "delete:1")},
			want:   map[string]map[string]bool{"ipam.vlan": {"v1": true}}},
		{name: "a record rewritten by another update long after its time: left to the check",
			before: []Entry{versioned(entry("e1", 0, "ipam.vlan", "v1", false), "update:1"), entry("e2", 8*time.Minute, "ipam.vlan", "v2", false)},
			after:  []Entry{versioned(entry("e1", 0, "ipam.vlan", "v1", false), "update:2")},
			want:   map[string]map[string]bool{}},
		{name: "a late commit behind Recent, within the overlap",
			before: []Entry{entry("e1", 0, "ipam.vlan", "v1", false)},
			after:  []Entry{entry("e2", -3*time.Minute, "ipam.vlan", "v2", false)},
			want:   map[string]map[string]bool{"ipam.vlan": {"v2": false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &memLog{entries: slices.Clone(tt.before)}
			clk := clocktest.New(t0)
			c := NewCursor(log, types, clk)
			if err := c.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			for _, e := range tt.after {
				if i := slices.IndexFunc(log.entries, func(x Entry) bool { return x.ID == e.ID }); i >= 0 {
					log.entries[i] = e // rewritten in place
					continue
				}
				log.entries = append(log.entries, e)
			}
			clk.Advance(tt.wait)
			ch, err := c.Next(context.Background())
			if _, ok := errors.AsType[*UntrustedError](err); ok != tt.untrusted {
				t.Fatalf("Next() error = %v, want untrusted %v", err, tt.untrusted)
			}
			if tt.untrusted {
				if _, err := c.Next(context.Background()); err == nil {
					t.Error("Next after an untrusted Next succeeded, want a Start first")
				}
				return
			}
			if !maps.EqualFunc(ch.Objects, tt.want, maps.Equal) {
				t.Errorf("Next() = %v, want %v", ch.Objects, tt.want)
			}
			// What one Next returned, the next one does not.
			again, err := c.Next(context.Background())
			if err != nil || !again.Empty() {
				t.Errorf("second Next() = %v, %v; want nothing", again.Objects, err)
			}
		})
	}
}

// memTarget rereads from a map of id → object, as a target in scope.
type memTarget struct {
	objs  map[string]resource.Object
	asked map[resource.Kind][]string
}

func (m *memTarget) Reread(_ context.Context, ids map[resource.Kind][]string) ([]resource.Object, []resource.Key, error) {
	var out []resource.Object
	for k, list := range ids {
		m.asked[k] = append(m.asked[k], list...)
		for _, id := range list {
			if o, ok := m.objs[id]; ok {
				out = append(out, o)
			}
		}
	}
	return out, nil, nil
}

func (m *memTarget) Names() ([]byte, error) { return []byte(`{"names":"as read"}`), nil }

// A memory target has no lookups: nothing to settle.
func (m *memTarget) Settle(context.Context, Changes) error { return nil }

func (m *memTarget) Changed(_ context.Context, since map[resource.Kind]time.Time) ([]resource.Object, error) {
	var out []resource.Object
	for _, o := range m.objs {
		if t, ok := since[o.Key().Kind]; ok && !stamp(o).Before(t) {
			out = append(out, o)
		}
	}
	return out, nil
}

func vlan(id, group string, vid uint16, desc string) *resource.VLAN {
	return &resource.VLAN{M: resource.Meta{ID: id}, Group: group, VID: vid, Description: desc}
}

func prefix(id, cidr, vlanKey string) *resource.Prefix {
	return &resource.Prefix{M: resource.Meta{ID: id}, Namespace: "Global", Prefix: netip.MustParsePrefix(cidr), VLAN: vlanKey}
}

func TestViewUpdate(t *testing.T) {
	kinds := map[string]resource.Kind{"ipam.vlan": resource.KindVLAN, "ipam.prefix": resource.KindPrefix}
	start := []resource.Object{vlan("v1", "g", 100, ""), vlan("v2", "g", 200, ""),
		prefix("p1", "10.0.0.0/24", "g/100"), prefix("p2", "10.0.1.0/24", "g/200")}
	tests := []struct {
		name      string
		server    []resource.Object // the target now
		changes   map[string]map[string]bool
		wantAsked map[resource.Kind][]string
		untrusted bool
	}{
		{name: "a description edited: only the VLAN is read",
			server:    []resource.Object{vlan("v1", "g", 100, "edited"), vlan("v2", "g", 200, ""), prefix("p1", "10.0.0.0/24", "g/100"), prefix("p2", "10.0.1.0/24", "g/200")},
			changes:   map[string]map[string]bool{"ipam.vlan": {"v1": false}},
			wantAsked: map[resource.Kind][]string{resource.KindVLAN: {"v1"}}},
		{name: "a VLAN renumbered: its prefix names it anew",
			server:    []resource.Object{vlan("v1", "g", 101, ""), vlan("v2", "g", 200, ""), prefix("p1", "10.0.0.0/24", "g/101"), prefix("p2", "10.0.1.0/24", "g/200")},
			changes:   map[string]map[string]bool{"ipam.vlan": {"v1": false}},
			wantAsked: map[resource.Kind][]string{resource.KindVLAN: {"v1"}, resource.KindPrefix: {"p1"}}},
		{name: "a VLAN deleted: its prefix loses it",
			server:    []resource.Object{vlan("v1", "g", 100, ""), prefix("p1", "10.0.0.0/24", "g/100"), prefix("p2", "10.0.1.0/24", "")},
			changes:   map[string]map[string]bool{"ipam.vlan": {"v2": true}},
			wantAsked: map[resource.Kind][]string{resource.KindPrefix: {"p2"}}},
		{name: "a prefix created and one moved out of scope",
			server:    []resource.Object{vlan("v1", "g", 100, ""), vlan("v2", "g", 200, ""), prefix("p1", "10.0.0.0/24", "g/100"), prefix("p3", "10.0.3.0/24", "")},
			changes:   map[string]map[string]bool{"ipam.prefix": {"p2": false, "p3": false}},
			wantAsked: map[resource.Kind][]string{resource.KindPrefix: {"p2", "p3"}}},
		{name: "a location changed", changes: map[string]map[string]bool{"dcim.location": {"l1": false}}, untrusted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := NewView(start)
			m := &memTarget{objs: map[string]resource.Object{}, asked: map[resource.Kind][]string{}}
			for _, o := range tt.server {
				m.objs[o.Meta().ID] = o
			}
			_, err := v.Update(context.Background(), Changes{Objects: tt.changes}, kinds, m)
			if _, ok := errors.AsType[*UntrustedError](err); ok != tt.untrusted {
				t.Fatalf("Update() error = %v, want untrusted %v", err, tt.untrusted)
			}
			if tt.untrusted {
				if v.Len() != len(start) {
					t.Errorf("an untrusted Update changed the view to %d objects", v.Len())
				}
				return
			}
			for k := range m.asked {
				slices.Sort(m.asked[k])
			}
			if !maps.EqualFunc(m.asked, tt.wantAsked, slices.Equal) {
				t.Errorf("reread %v, want %v", m.asked, tt.wantAsked)
			}
			if misses := Compare(v.Objects(), slices.Collect(maps.Values(m.objs))); len(misses) > 0 {
				t.Errorf("view after Update differs from the target: %v", misses)
			}
		})
	}
}

// NetBox numbers each kind on its own: a VLAN and a prefix may both be
// id 1, and a change of one must not take the other out of the view.
func TestViewIDsPerKind(t *testing.T) {
	kinds := map[string]resource.Kind{"ipam.vlan": resource.KindVLAN, "ipam.prefix": resource.KindPrefix}
	v := NewView([]resource.Object{vlan("1", "g", 100, ""), prefix("1", "10.0.0.0/24", "")})
	m := &memTarget{objs: map[string]resource.Object{"1": vlan("1", "g", 100, "edited")}, asked: map[resource.Kind][]string{}}
	if _, err := v.Update(context.Background(), Changes{Objects: map[string]map[string]bool{"ipam.vlan": {"1": false}}}, kinds, m); err != nil {
		t.Fatal(err)
	}
	if got := v.Len(); got != 2 {
		t.Errorf("view holds %d objects after a VLAN sharing its id with a prefix changed, want 2: %v", got, v.Objects())
	}
}
