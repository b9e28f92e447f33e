package changelog

import (
	"context"
	"fmt"
	"time"

	"github.com/ipsync/ipsync/internal/resource"
)

// stamp is when the target last changed o (its last_updated), zero where
// it does not say.
func stamp(o resource.Object) time.Time {
	t, err := time.Parse(time.RFC3339Nano, o.Meta().Version)
	if err != nil {
		return time.Time{}
	}
	return t
}

// newest is, for each kind the view holds, the newest stamp of its
// objects.
func (v *View) newest() map[resource.Kind]time.Time {
	at := map[resource.Kind]time.Time{}
	for k, o := range v.objs {
		if s := stamp(o); s.After(at[k.kind]) {
			at[k.kind] = s
		}
	}
	return at
}

// Check tests the view against what a stale view cannot match: for each
// kind, the objects of the scope stamped at or after the newest stamp the
// view held when it was last checked (or read whole) must be the view's
// objects stamped so, each at the same stamp. An object changed or created
// since that the log did not name (its entry pruned before it was read,
// or never written, as for a queryset update in a Job) is stamped later;
// an object the view holds stamped so and the read lacks went without an
// entry. types maps the content types the view holds to their kinds. The
// objects found are read again through Update and returned as misses.
// Deletes of older objects and changes committed behind the overlap are
// the cursor's to find (its tally); what neither finds is left to the
// sweep.
func (v *View) Check(ctx context.Context, types map[string]resource.Kind, r Rereader) (Stats, error) {
	typeOf := map[resource.Kind]string{}
	since := map[resource.Kind]time.Time{}
	for typ, k := range types {
		typeOf[k] = typ
		since[k] = v.checkFrom[k]
	}
	// One pass parses each stamp once: what must be returned, and where
	// the next check starts unless a miss changes the view.
	held, newest := map[viewKey]bool{}, map[resource.Kind]time.Time{}
	for k, o := range v.objs {
		s := stamp(o)
		if from, ok := since[k.kind]; ok && !s.Before(from) {
			held[k] = true
		}
		if s.After(newest[k.kind]) {
			newest[k.kind] = s
		}
	}
	got, err := r.Changed(ctx, since)
	if err != nil {
		return Stats{}, fmt.Errorf("check the view: %w", err)
	}
	var missed []Miss
	ch := Changes{Objects: map[string]map[string]bool{}, Names: map[string]map[string]string{}}
	stale := func(o resource.Object, what string) {
		missed = append(missed, Miss{ID: o.Meta().ID, Key: o.Key(), What: what})
		ch.add(Entry{Type: typeOf[o.Key().Kind], ObjectID: o.Meta().ID, Name: o.Key().Name})
	}
	returned := make(map[viewKey]bool, len(got))
	for _, o := range got {
		k := keyOf(o)
		returned[k] = true
		switch held, ok := v.objs[k]; {
		case !ok:
			stale(o, "in the target, stamped "+o.Meta().Version+", with no change record read")
		case held.Meta().Version != o.Meta().Version:
			stale(o, fmt.Sprintf("stamped %s in the target, %s in the view, with no change record read", o.Meta().Version, held.Meta().Version))
		}
	}
	for k := range held {
		if !returned[k] {
			stale(v.objs[k], "gone from the target's scope with no change record read")
		}
	}
	st := Stats{Checked: len(got)}
	if len(missed) > 0 {
		up, err := v.Update(ctx, ch, types, r)
		if err != nil {
			return Stats{}, err
		}
		up.Checked, up.Missed = st.Checked, missed
		st = up
		newest = v.newest()
	}
	v.checkFrom = newest
	return st, nil
}
