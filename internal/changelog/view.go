package changelog

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ipsync/ipsync/internal/resource"
)

// Rereader reads objects of the owner's scope again by the target's ids.
// Objects that no longer exist or have left the scope are not returned.
// gone are keys the rereader knows changed besides those of objects the
// view holds: one of the asked objects that the view did not hold but
// others name (a VLAN outside the scope named by a prefix in it), under
// the key it had.
type Rereader interface {
	Reread(ctx context.Context, ids map[resource.Kind][]string) (objs []resource.Object, gone []resource.Key, err error)
	// Changed reads the objects of the scope of each kind in since
	// stamped (last_updated) at or after its time, or every object of
	// the kind where the time is zero.
	Changed(ctx context.Context, since map[resource.Kind]time.Time) ([]resource.Object, error)
	// Names are the names and lookups of the whole read the Rereader
	// reads with, as its adapter's Restore takes them back.
	Names() ([]byte, error)
	// Settle takes out of Changes the changes of lookups (types the view
	// does not hold) that leave every object reading as before: objects
	// name a tag or a role by name, so a change that keeps the name
	// changes none of them. A plan also checks where a lookup may be
	// used (a status's content types), which the log does not tell:
	// Settle reads such lookups again and gives the plan what it read,
	// so that a refusal the operator fixed in the target is not
	// repeated.
	Settle(ctx context.Context, ch Changes) error
}

// viewKey is how a view holds an object: targets such as NetBox number
// each kind on its own, so an id alone may name a VLAN and a prefix.
type viewKey struct {
	kind resource.Kind
	id   string
}

func keyOf(o resource.Object) viewKey { return viewKey{o.Key().Kind, o.Meta().ID} }

// View is the owner's objects in a target as last read, by kind and id.
type View struct {
	objs map[viewKey]resource.Object
	// checkFrom is, for each kind, where the next Check starts: the
	// newest stamp the view held when it was read whole or last checked.
	// Not the newest it holds at the check: a change the log named since,
	// read into the view, is stamped after one it did not name made
	// before it, which a check from there would pass over.
	checkFrom map[resource.Kind]time.Time
}

// NewView holds objs, a whole read of the owner's scope.
func NewView(objs []resource.Object) *View {
	v := &View{objs: make(map[viewKey]resource.Object, len(objs))}
	for _, o := range objs {
		v.objs[keyOf(o)] = o
	}
	v.checkFrom = v.newest()
	return v
}

// Objects are the view's objects, by kind and then id.
func (v *View) Objects() []resource.Object {
	keys := slices.SortedFunc(maps.Keys(v.objs), func(a, b viewKey) int {
		if c := strings.Compare(string(a.kind), string(b.kind)); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	out := make([]resource.Object, 0, len(keys))
	for _, k := range keys {
		out = append(out, v.objs[k])
	}
	return out
}

// Len is how many objects the view holds.
func (v *View) Len() int { return len(v.objs) }

// Stats is what an Update or a Refresh did.
type Stats struct {
	Reread int // objects asked for again, referrers included
	Read   int // objects the rereads returned
	Gone   int // objects the view no longer holds: deleted, or out of scope
	// Checked is how many objects the check of the view read, and
	// Missed the changes it found that the log had not named.
	Checked int
	Missed  []Miss
}

// maxRounds bounds how far a change of key is followed through objects
// referring to it (a VLAN renumbered: its prefixes; a group renamed: its
// VLANs, then their prefixes).
const maxRounds = 4

// Update applies ch to the view: deleted objects go, changed ones are read
// again. An object whose key changed, or which went, is named by that key
// in other objects' references (a prefix names its VLAN by group and vid)
// and nothing logs a change of those, so they are read again too. kinds
// maps the content types the view holds; a change of any other type in ch
// (a location renamed, a status deleted) may alter how every object reads,
// and is an *UntrustedError. On any error the view is unchanged.
func (v *View) Update(ctx context.Context, ch Changes, kinds map[string]resource.Kind, r Rereader) (Stats, error) {
	var st Stats
	next := maps.Clone(v.objs)
	ask := map[resource.Kind][]string{}
	gone := map[resource.Key]bool{}
	for _, typ := range slices.Sorted(maps.Keys(ch.Objects)) {
		kind, ok := kinds[typ]
		if !ok {
			return Stats{}, &UntrustedError{Reason: fmt.Sprintf("%s objects changed, and every object may read differently", typ)}
		}
		for _, id := range slices.Sorted(maps.Keys(ch.Objects[typ])) {
			if old, ok := next[viewKey{kind, id}]; ok {
				gone[old.Key()] = true
				delete(next, viewKey{kind, id})
			}
			if !ch.Objects[typ][id] {
				ask[kind] = append(ask[kind], id)
			}
		}
	}
	for round := 0; ; round++ {
		if len(ask) > 0 {
			n := 0
			for k := range ask {
				slices.Sort(ask[k])
				ask[k] = slices.Compact(ask[k])
				n += len(ask[k])
			}
			st.Reread += n
			got, strays, err := r.Reread(ctx, ask)
			if err != nil {
				return Stats{}, fmt.Errorf("reread %d changed objects: %w", n, err)
			}
			st.Read += len(got)
			for _, o := range got {
				next[keyOf(o)] = o
				delete(gone, o.Key()) // back under the same key: no change to its referrers
			}
			for _, k := range strays {
				gone[k] = true
			}
		}
		if len(gone) == 0 {
			break
		}
		if round == maxRounds {
			return Stats{}, &UntrustedError{Reason: fmt.Sprintf("keys still changing after %d rounds of rereading the objects naming them", maxRounds)}
		}
		ask = map[resource.Kind][]string{}
		referrersGone := map[resource.Key]bool{}
		for k, o := range next {
			for _, ref := range o.References() {
				if gone[resource.Key{Kind: ref.Kind, Name: ref.Name}] {
					ask[k.kind] = append(ask[k.kind], k.id)
					delete(next, k)
					referrersGone[o.Key()] = true
					break
				}
			}
		}
		gone = referrersGone
	}
	for k := range v.objs {
		if _, ok := next[k]; !ok {
			st.Gone++
		}
	}
	v.objs = next
	return st, nil
}
