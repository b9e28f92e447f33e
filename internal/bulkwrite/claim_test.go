package bulkwrite

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// holder is the object that holds a key on the server.
type holder struct {
	id    string
	owner resource.Owner
}

// claimingStore refuses the creates of keys it holds, as a server with a
// uniqueness rule does, and says who holds them.
type claimingStore struct {
	*store
	holds     map[string]holder // by key name
	claimErr  error
	claimRead int
	// unique is false for a server that keeps no key unique: it refuses
	// no create, and writes a second object of a key.
	unique bool
}

func (c *claimingStore) Write(ctx context.Context, b Batch[string], rep *Report[string]) error {
	if b.Op != Create || !c.unique {
		return c.store.Write(ctx, b, rep)
	}
	var free []Item[string]
	for _, it := range b.Items {
		if _, taken := c.holds[it.Body]; taken {
			rep.Failed(it, "an object with this key already exists")
			continue
		}
		free = append(free, it)
	}
	if len(free) == 0 {
		return nil
	}
	b.Items = free
	return c.store.Write(ctx, b, rep)
}

func (c *claimingStore) Claimed(_ context.Context, _ resource.Kind, items []Item[string]) (map[int]string, error) {
	c.claimRead++
	if c.claimErr != nil {
		return nil, c.claimErr
	}
	out := map[int]string{}
	for i, it := range items {
		if h, ok := c.holds[it.Body]; ok && h.owner == it.Change.Desired.Meta().Owner {
			out[i] = h.id
		}
	}
	return out, nil
}

func (c *claimingStore) Unguarded(Item[string]) bool { return !c.unique }

func (c *claimingStore) AsUpdate(it Item[string], id string) Item[string] {
	it.ID, it.Body = id, it.Body+"@"+id
	return it
}

// TestCreateOfAKeyItsOwnerHoldsUpdatesIt: a create refused because an
// object of its own owner holds its key (an earlier run's write the plan
// did not see) becomes an update of that object, reported written; a
// key held by another owner, or by no owner, stays refused.
func TestCreateOfAKeyItsOwnerHoldsUpdatesIt(t *testing.T) {
	const mine, theirs = resource.Owner("neutron:a11"), resource.Owner("neutron:b22")
	owned := func(o resource.Object) resource.Object { o.Meta().Owner = mine; return o }
	tests := []struct {
		name      string
		holds     map[string]holder
		claimErr  error
		batches   []string
		errors    []string
		written   int
		learned   []string
		wantErr   string
		wantReads int
		notUnique bool // the server keeps no key unique
	}{
		{
			name:    "nothing held: written as planned, no read",
			batches: []string{"create vlan g/1,g/2"},
			written: 2, learned: []string{"g/1=1", "g/2=2"},
		},
		{
			name:    "held by its owner: updated instead",
			holds:   map[string]holder{"g/1": {"h1", mine}},
			batches: []string{"create vlan g/2", "update vlan g/1@h1"},
			written: 2, learned: []string{"g/2=1", "g/1=h1"}, wantReads: 1,
		},
		{
			name:    "held by another owner, or by none: refused",
			holds:   map[string]holder{"g/1": {"h1", theirs}, "g/2": {"h2", ""}},
			errors:  []string{"create vlan g/1: an object with this key already exists", "create vlan g/2: an object with this key already exists"},
			wantErr: "refused 2 change(s)", wantReads: 1,
		},
		{
			name:     "holders unreadable: the refusals stand, and the apply stops",
			holds:    map[string]holder{"g/1": {"h1", mine}},
			claimErr: errors.New("connection refused"),
			batches:  []string{"create vlan g/2"},
			errors:   []string{"create vlan g/1: an object with this key already exists"},
			written:  1, learned: []string{"g/2=1"}, wantErr: "connection refused", wantReads: 1,
		},
		{
			name:      "a key the server does not keep unique: its holder looked up before the create",
			notUnique: true,
			holds:     map[string]holder{"g/1": {"h1", mine}},
			batches:   []string{"update vlan g/1@h1", "create vlan g/2"},
			written:   2, learned: []string{"g/1=h1", "g/2=1"}, wantReads: 1,
		},
		{
			name:      "a key the server does not keep unique, another owner's: created beside it",
			notUnique: true,
			holds:     map[string]holder{"g/1": {"h1", theirs}},
			batches:   []string{"create vlan g/1,g/2"},
			written:   2, learned: []string{"g/1=1", "g/2=2"}, wantReads: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &claimingStore{store: &store{}, holds: tt.holds, claimErr: tt.claimErr, unique: !tt.notUnique}
			changes := []plan.Change{create(owned(vlan("g", 1))), create(owned(vlan("g", 2)))}
			res, err := Apply(context.Background(), Writer[string](s), changes, Options{BatchSize: 10, Server: "nautobot"})
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Apply error = %v, want %q", err, tt.wantErr)
			}
			if !slices.Equal(s.batches, tt.batches) {
				t.Errorf("batches = %q, want %q", s.batches, tt.batches)
			}
			var errs []string
			for _, e := range res.Errors {
				errs = append(errs, e.Error())
			}
			if !slices.Equal(errs, tt.errors) {
				t.Errorf("errors = %q, want %q", errs, tt.errors)
			}
			if res.Written != tt.written || !slices.Equal(s.learned, tt.learned) {
				t.Errorf("written %d, learned %q; want %d, %q", res.Written, s.learned, tt.written, tt.learned)
			}
			if s.claimRead != tt.wantReads {
				t.Errorf("holders read %d times, want %d", s.claimRead, tt.wantReads)
			}
			if n := res.Counts[resource.KindVLAN][plan.Create]; n != tt.written {
				t.Errorf("%d counted as created, want %d: %v", n, tt.written, fmt.Sprint(res.Counts))
			}
		})
	}
}
