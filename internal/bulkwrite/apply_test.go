package bulkwrite

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// behaviour is how a store answers.
type behaviour struct {
	refuse   map[string]bool // keys "kind name" it refuses
	down     int             // the batch from which it cannot be reached; 0 for never
	preflErr error
	// now are owners changed since the plan, by id; gone ids are deleted.
	now  map[string]resource.Owner
	gone map[string]bool
}

// store is an in-memory server behind a Writer: it refuses the objects
// named in refuse, assigns ids to creates as NetBox does, and logs each
// batch as "op kind name,name".
type store struct {
	behaviour

	mu       sync.Mutex
	batches  []string
	learned  []string
	planned  map[string]resource.Owner // the owners the changes were planned on, by id
	reads    []string                  // Owners asked: "kind id,id"
	nextID   int
	inFlight int
	maxIn    int
}

func (s *store) plannedOn(ch *plan.Change) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.planned == nil {
		s.planned = map[string]resource.Owner{}
	}
	s.planned[ch.Current.Meta().ID] = ch.Current.Meta().Owner
}

func (s *store) Owners(_ context.Context, k resource.Kind, ids []string) (map[string]resource.Owner, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads = append(s.reads, fmt.Sprintf("%s %s", k, strings.Join(ids, ",")))
	out := map[string]resource.Owner{}
	for _, id := range ids {
		if s.gone[id] {
			continue
		}
		out[id] = s.planned[id]
		if o, ok := s.now[id]; ok {
			out[id] = o
		}
	}
	return out, nil
}

func (s *store) Item(ch *plan.Change) (Item[string], error) {
	if ch.Key.Name == "unbuildable" {
		return Item[string]{}, errors.New("cannot be written here")
	}
	id := ""
	if ch.Current != nil {
		id = ch.Current.Meta().ID
		s.plannedOn(ch)
	}
	return Item[string]{Change: ch, ID: id, Body: ch.Key.Name}, nil
}

func (s *store) Interim(ch *plan.Change) (Item[string], error) {
	s.plannedOn(ch)
	return Item[string]{Change: ch, ID: ch.Current.Meta().ID, Body: ch.Interim[0].New}, nil
}

func (s *store) Write(_ context.Context, b Batch[string], rep *Report[string]) error {
	s.mu.Lock()
	s.inFlight++
	s.maxIn = max(s.maxIn, s.inFlight)
	names := make([]string, len(b.Items))
	for i, it := range b.Items {
		names[i] = it.Body
	}
	tag := ""
	if b.Interim {
		tag = " (interim)"
	}
	s.batches = append(s.batches, fmt.Sprintf("%s %s %s%s", b.Op, b.Kind, strings.Join(names, ","), tag))
	unreachable := s.down > 0 && len(s.batches) >= s.down
	s.mu.Unlock()
	defer func() { s.mu.Lock(); s.inFlight--; s.mu.Unlock() }()
	if unreachable {
		return errors.New("server unreachable")
	}
	for _, it := range b.Items {
		if s.refuse[string(b.Kind)+" "+it.Body] {
			rep.Failed(it, "refused by the server")
			continue
		}
		if it.ID == "" {
			s.mu.Lock()
			s.nextID++
			it.ID = fmt.Sprint(s.nextID)
			s.mu.Unlock()
		}
		rep.Done(it)
	}
	return nil
}

// A store claims no key: its creates are never refused as clashes.
func (s *store) Claimed(context.Context, resource.Kind, []Item[string]) (map[int]string, error) {
	return nil, nil
}
func (s *store) AsUpdate(it Item[string], id string) Item[string] { it.ID = id; return it }
func (s *store) Unguarded(Item[string]) bool                      { return false }

func (s *store) Learned(ch *plan.Change, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.learned = append(s.learned, ch.Key.Name+"="+id)
}

func (s *store) Preflight(context.Context, []*plan.Change) error { return s.preflErr }

func create(o resource.Object) plan.Change {
	return plan.Change{Action: plan.Create, Key: o.Key(), Desired: o}
}

func update(o resource.Object, id string) plan.Change {
	cur := resource.Clone(o)
	cur.Meta().ID = id
	return plan.Change{Action: plan.Update, Key: o.Key(), Desired: o, Current: cur}
}

func remove(o resource.Object, id string) plan.Change {
	o.Meta().ID = id
	return plan.Change{Action: plan.Delete, Key: o.Key(), Current: o}
}

func ns(name string) *resource.Namespace { return &resource.Namespace{Name: name} }
func group(name string) *resource.VLANGroup {
	return &resource.VLANGroup{Name: name}
}
func vlan(g string, vid uint16) *resource.VLAN {
	return &resource.VLAN{Group: g, VID: vid, Name: fmt.Sprint("v", vid)}
}
func prefix(n, p string) *resource.Prefix {
	return &resource.Prefix{Namespace: n, Prefix: netip.MustParsePrefix(p)}
}
func ip(n, a string) *resource.IPAddress {
	return &resource.IPAddress{Namespace: n, Address: netip.MustParsePrefix(a)}
}

func TestApply(t *testing.T) {
	swapped := update(vlan("g", 2), "v2")
	swapped.Interim = []resource.FieldDiff{{Field: "name", Old: "v2", New: "tmp-2"}}
	tests := []struct {
		name      string
		changes   []plan.Change
		store     behaviour
		batchSize int
		batches   []string
		errors    []string // "key: message [after key]" of Result.Errors
		written   int
		learned   []string
		wantErr   string // part of Apply's error
	}{
		{
			name: "parents first, deletes children first, updates before creates",
			changes: []plan.Change{
				create(ip("n", "10.0.0.1/24")), create(vlan("g", 1)), update(vlan("g", 3), "v3"), create(group("g")),
				create(prefix("n", "10.0.0.0/24")), create(ns("n")),
				remove(ns("old"), "o1"), remove(prefix("old", "10.9.0.0/16"), "o2"),
			},
			batchSize: 10,
			batches: []string{
				"create namespace n", "create vlan_group g", "update vlan g/3", "create vlan g/1",
				"create prefix n/10.0.0.0/24", "create ip_address n/10.0.0.1",
				"delete prefix old/10.9.0.0/16", "delete namespace old",
			},
			written: 8,
			learned: []string{"n=1", "g=2", "g/3=v3", "g/1=3", "n/10.0.0.0/24=4", "n/10.0.0.1=5", "old/10.9.0.0/16=o2", "old=o1"},
		},
		{
			name: "runs split by deletes keep the order given",
			changes: []plan.Change{
				create(vlan("g", 1)), remove(vlan("g", 7), "v7"), create(group("g")),
			},
			batchSize: 10,
			batches:   []string{"create vlan g/1", "delete vlan g/7", "create vlan_group g"},
			written:   3,
			learned:   []string{"g/1=1", "g/7=v7", "g=2"},
		},
		{
			name:      "batches of BatchSize",
			changes:   []plan.Change{create(vlan("g", 1)), create(vlan("g", 2)), create(vlan("g", 3)), create(vlan("g", 4)), create(vlan("g", 5))},
			batchSize: 2,
			batches:   []string{"create vlan g/1,g/2", "create vlan g/3,g/4", "create vlan g/5"},
			written:   5,
			learned:   []string{"g/1=1", "g/2=2", "g/3=3", "g/4=4", "g/5=5"},
		},
		{
			name:      "one object per request",
			changes:   []plan.Change{create(vlan("g", 1)), create(vlan("g", 2)), remove(vlan("g", 3), "v3")},
			batchSize: 1,
			batches:   []string{"create vlan g/1", "create vlan g/2", "delete vlan g/3"},
			written:   3,
			learned:   []string{"g/1=1", "g/2=2", "g/3=v3"},
		},
		{
			name:      "what refers to a refused object is not sent",
			changes:   []plan.Change{create(group("g")), create(vlan("g", 1)), create(vlan("h", 1))},
			store:     behaviour{refuse: map[string]bool{"vlan_group g": true}},
			batchSize: 10,
			batches:   []string{"create vlan_group g", "create vlan h/1"},
			errors: []string{
				"vlan_group g: refused by the server",
				"vlan g/1: not written: it refers to vlan_group g, which was not written [after vlan_group g]",
			},
			written: 1,
			learned: []string{"h/1=1"},
		},
		{
			name: "an address whose new parent prefix was refused is not sent",
			changes: []plan.Change{
				create(prefix("n", "10.0.0.0/24")), create(prefix("n", "10.0.0.0/16")),
				create(ip("n", "10.0.0.5/24")), create(ip("n", "10.0.1.5/16")),
			},
			store:     behaviour{refuse: map[string]bool{"prefix n/10.0.0.0/24": true}},
			batchSize: 10,
			batches:   []string{"create prefix n/10.0.0.0/24,n/10.0.0.0/16", "create ip_address n/10.0.1.5"},
			errors: []string{
				"prefix n/10.0.0.0/24: refused by the server",
				"ip_address n/10.0.0.5: not written: its parent prefix n/10.0.0.0/24 was not written [after prefix n/10.0.0.0/24]",
			},
			written: 2,
			learned: []string{"n/10.0.0.0/16=1", "n/10.0.1.5=2"},
		},
		{
			name:      "interim values first, not counted",
			changes:   []plan.Change{create(group("g")), swapped},
			batchSize: 10,
			batches:   []string{"update vlan tmp-2 (interim)", "create vlan_group g", "update vlan g/2"},
			written:   2,
			learned:   []string{"g=1", "g/2=v2"},
		},
		{
			name:      "a refused interim value keeps its change unwritten",
			changes:   []plan.Change{swapped},
			store:     behaviour{refuse: map[string]bool{"vlan tmp-2": true}},
			batchSize: 10,
			batches:   []string{"update vlan tmp-2 (interim)"},
			errors:    []string{"vlan g/2: refused by the server"},
		},
		{
			// The plan was made on a view that missed a change: what is
			// not the owner's any more is neither written over nor
			// deleted, and what is gone is deleted already.
			name: "objects whose owner changed since the plan are left alone",
			changes: []plan.Change{update(vlan("g", 3), "v3"), update(vlan("g", 6), "v6"),
				remove(vlan("g", 4), "v4"), remove(vlan("g", 5), "v5"), remove(vlan("g", 7), "v7")},
			store: behaviour{now: map[string]resource.Owner{"v4": "static:other", "v6": "neutron:b22"},
				gone: map[string]bool{"v5": true, "v7": true}},
			batchSize: 10,
			batches:   []string{"update vlan g/3"},
			errors: []string{
				"vlan g/6: not written: its owner changed since the plan was made, from none (no ipsync marker) to neutron:b22; the next plan sees it as it is",
				"vlan g/4: not written: its owner changed since the plan was made, from none (no ipsync marker) to static:other; the next plan sees it as it is",
			},
			written: 3,
			learned: []string{"g/3=v3", "g/5=v5", "g/7=v7"},
		},
		{
			name:      "an update of an object gone since the plan is refused",
			changes:   []plan.Change{update(vlan("g", 3), "v3")},
			store:     behaviour{gone: map[string]bool{"v3": true}},
			batchSize: 10,
			errors:    []string{"vlan g/3: not written: it was deleted since the plan was made"},
		},
		{
			name:      "a change the adapter cannot build is refused alone",
			changes:   []plan.Change{create(ns("unbuildable")), create(ns("n"))},
			batchSize: 10,
			batches:   []string{"create namespace n"},
			errors:    []string{"namespace unbuildable: cannot be written here"},
			written:   1,
			learned:   []string{"n=1"},
		},
		{
			name:      "an unreachable server stops the apply",
			changes:   []plan.Change{create(ns("n")), create(group("g")), create(vlan("g", 1))},
			store:     behaviour{down: 2},
			batchSize: 10,
			batches:   []string{"create namespace n", "create vlan_group g"},
			written:   1,
			learned:   []string{"n=1"},
			wantErr:   "server unreachable",
		},
		{
			name:      "a failed preflight writes nothing",
			changes:   []plan.Change{create(ns("n"))},
			store:     behaviour{preflErr: errors.New("run ipsync bootstrap first")},
			batchSize: 10,
			wantErr:   "run ipsync bootstrap first",
		},
		{
			name:      "no writes, no preflight",
			changes:   []plan.Change{{Action: plan.Noop, Key: ns("n").Key(), Desired: ns("n"), Current: ns("n")}},
			store:     behaviour{preflErr: errors.New("must not be asked")},
			batchSize: 10,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &store{behaviour: tt.store}
			res, err := Apply(context.Background(), s, tt.changes, Options{BatchSize: tt.batchSize, Server: "testbox"})
			if !slices.Equal(s.batches, tt.batches) {
				t.Errorf("batches:\n  %s\nwant:\n  %s", strings.Join(s.batches, "\n  "), strings.Join(tt.batches, "\n  "))
			}
			var got []string
			for _, e := range res.Errors {
				s := e.Key.String() + ": " + e.Message
				if e.After != (resource.Key{}) {
					s += " [after " + e.After.String() + "]"
				}
				got = append(got, s)
			}
			if !slices.Equal(got, tt.errors) {
				t.Errorf("errors = %q, want %q", got, tt.errors)
			}
			switch want := tt.wantErr; {
			case want == "" && len(tt.errors) == 0 && err != nil:
				t.Errorf("Apply: %v", err)
			case want == "" && len(tt.errors) > 0 && (err == nil || !strings.Contains(err.Error(), fmt.Sprintf("testbox refused %d change(s)", len(tt.errors)))):
				t.Errorf("Apply = %v, want testbox refused %d change(s)", err, len(tt.errors))
			case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
				t.Errorf("Apply = %v, want an error with %q", err, want)
			}
			if res.Written != tt.written {
				t.Errorf("Written = %d, want %d", res.Written, tt.written)
			}
			if !slices.Equal(s.learned, tt.learned) {
				t.Errorf("learned = %q, want %q", s.learned, tt.learned)
			}
		})
	}
}

func TestApplyCounts(t *testing.T) {
	s := &store{}
	changes := []plan.Change{create(vlan("g", 1)), create(vlan("g", 2)), update(vlan("g", 3), "v3"), remove(vlan("g", 4), "v4")}
	res, err := Apply(context.Background(), s, changes, Options{BatchSize: 10, Server: "testbox"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[plan.Action]int{plan.Create: 2, plan.Update: 1, plan.Delete: 1}
	if got := res.Counts[resource.KindVLAN]; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Counts[vlan] = %v, want %v", got, want)
	}
}

// TestApplyWriters: batches of a kind run at most Writers at once.
func TestApplyWriters(t *testing.T) {
	for _, writers := range []int{1, 3} {
		t.Run(fmt.Sprint(writers), func(t *testing.T) {
			s := &store{}
			var changes []plan.Change
			for vid := range uint16(40) {
				changes = append(changes, create(vlan("g", vid+1)))
			}
			if _, err := Apply(context.Background(), s, changes, Options{BatchSize: 2, Concurrency: writers}); err != nil {
				t.Fatal(err)
			}
			if len(s.batches) != 20 || s.maxIn > writers {
				t.Errorf("%d batches, %d at once; want 20, at most %d at once", len(s.batches), s.maxIn, writers)
			}
		})
	}
}

// TestOwnersAskedPerBatch: the owners of what a batch updates or deletes
// are read once per batch, creates ask nothing, and writes that carry
// their own precondition ask nothing either.
func TestOwnersAskedPerBatch(t *testing.T) {
	changes := func() []plan.Change {
		return []plan.Change{create(vlan("g", 1)), update(vlan("g", 2), "v2"), update(vlan("g", 3), "v3"), update(vlan("g", 4), "v4"),
			remove(vlan("g", 5), "v5")}
	}
	tests := []struct {
		name string
		opt  Options
		want []string
	}{
		{"bulk", Options{BatchSize: 2}, []string{"vlan v2,v3", "vlan v4", "vlan v5"}},
		{"with preconditions", Options{BatchSize: 1, Precondition: true}, nil},
	}
	for _, tt := range tests {
		s := &store{}
		if _, err := Apply(context.Background(), s, changes(), tt.opt); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(s.reads, tt.want) {
			t.Errorf("%s: owners read %q, want %q", tt.name, s.reads, tt.want)
		}
	}
}
