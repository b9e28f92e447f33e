package changelog

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/resource"
)

// Adapter is what a Follower needs of a target adapter.
type Adapter interface {
	Log
	// ReadWhole reads the owner's scope whole, and returns a Rereader
	// that reads objects again with the names that read used.
	ReadWhole(ctx context.Context) ([]resource.Object, Rereader, error)
	// Restore returns the Rereader of a whole read from the names its
	// Names saved and the objects of the view, as if it had just read
	// them, without reading anything.
	Restore(ctx context.Context, names []byte, objs []resource.Object) (Rereader, error)
}

// Follower keeps one owner's objects in a target up to date from the
// target's change log, between whole reads.
type Follower struct {
	adapter Adapter
	types   []string
	kinds   map[string]resource.Kind
	clock   clock.Clock

	mu     sync.Mutex
	cursor *Cursor // nil until a whole read succeeded, and after any failure
	view   *View
	rr     Rereader
}

// NewFollower follows the changes of types, of which kinds are the ones
// its objects are (the others, lookups, call for a whole read).
func NewFollower(a Adapter, types []string, kinds map[string]resource.Kind, c clock.Clock) *Follower {
	return &Follower{adapter: a, types: types, kinds: kinds, clock: c}
}

// Follow reads the scope whole, having first noted where the log stands,
// so that Refresh can bring what it read up to date from the log alone.
func (f *Follower) Follow(ctx context.Context) ([]resource.Object, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.follow(ctx)
}

func (f *Follower) follow(ctx context.Context) ([]resource.Object, error) {
	f.cursor = nil
	cursor := NewCursor(f.adapter, f.types, f.clock)
	if err := cursor.Start(ctx); err != nil {
		return nil, &UnreadableError{Err: err}
	}
	objs, rr, err := f.adapter.ReadWhole(ctx)
	if err != nil {
		return nil, err
	}
	f.cursor, f.view, f.rr = cursor, NewView(objs), rr
	return objs, nil
}

// Refresh brings the objects of the last Follow up to date from the log.
// An *UntrustedError means Follow again; so does any other error, after
// which Refresh refuses until a Follow.
func (f *Follower) Refresh(ctx context.Context) ([]resource.Object, Stats, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refresh(ctx, true)
}

// RefreshUnchecked is Refresh without the check of the view (View.Check),
// for a sync that a checked one follows within the cycle: a sync narrowed
// to the networks a notification named. What the log missed, it misses
// too, and the next Refresh finds.
func (f *Follower) RefreshUnchecked(ctx context.Context) ([]resource.Object, Stats, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refresh(ctx, false)
}

func (f *Follower) refresh(ctx context.Context, check bool) ([]resource.Object, Stats, error) {
	c := f.cursor
	if c == nil {
		return nil, Stats{}, &UntrustedError{Reason: "no whole read to follow on from"}
	}
	f.cursor = nil
	ch, err := c.Next(ctx)
	if err != nil {
		return nil, Stats{}, err
	}
	if err := f.rr.Settle(ctx, ch); err != nil {
		return nil, Stats{}, fmt.Errorf("read changed lookups again: %w", err)
	}
	st, err := f.view.Update(ctx, ch, f.kinds, f.rr)
	if err != nil {
		return nil, Stats{}, err
	}
	if check {
		checked, err := f.view.Check(ctx, f.kinds, f.rr)
		if err != nil {
			return nil, Stats{}, err
		}
		st.Reread, st.Read, st.Gone = st.Reread+checked.Reread, st.Read+checked.Read, st.Gone+checked.Gone
		st.Checked, st.Missed = checked.Checked, checked.Missed
	}
	f.cursor = c
	return f.view.Objects(), st, nil
}

// Sweep reads the scope whole, as Follow does, and reports where it
// differs from what following the log had kept: the objects the log
// missed. Objects changed while the whole read ran differ for that
// reason alone, and are not reported. With nothing followed before, it
// is a Follow that reports nothing.
func (f *Follower) Sweep(ctx context.Context) ([]resource.Object, []Miss, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	// Unchecked: the comparison with the whole read below is the check,
	// and what a check would find it counts as misses all the same.
	view, _, err := f.refresh(ctx, false)
	if _, untrusted := errors.AsType[*UntrustedError](err); err != nil && !untrusted {
		return nil, nil, err
	}
	old := f.cursor // at the end of the log as of view; nil if it could not be followed
	whole, err := f.follow(ctx)
	if err != nil || old == nil {
		return whole, nil, err
	}
	during, err := old.Next(ctx)
	if err != nil {
		// Nothing to tell misses from changes made during the read.
		return whole, nil, nil
	}
	changed := map[viewKey]bool{}
	for typ, ids := range during.Objects {
		for id := range ids {
			changed[viewKey{f.kinds[typ], id}] = true
		}
	}
	var misses []Miss
	for _, m := range Compare(view, whole) {
		if !changed[viewKey{m.Key.Kind, m.ID}] {
			misses = append(misses, m)
		}
	}
	return whole, misses, nil
}
