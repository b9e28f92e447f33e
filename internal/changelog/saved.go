package changelog

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/ipsync/ipsync/internal/resource"
)

// Saved is what a Follower needs to follow on where it stopped, in a form
// that outlives the process: its view, its place in the log, and the
// names its adapter read the view with. Resumed, it is checked as every
// Refresh is: the log since its place (with the cursor's tally and
// witness), and the view against each kind's newest stamps.
type Saved struct {
	Objects []SavedObject   `json:"objects"`
	Cursor  SavedCursor     `json:"cursor"`
	Names   json.RawMessage `json:"names"`
}

// SavedObject is one object of a view, with its kind to decode it by.
type SavedObject struct {
	Kind   resource.Kind   `json:"kind"`
	Object json.RawMessage `json:"object"`
}

// SavedCursor is a Cursor's place in the log.
type SavedCursor struct {
	At       time.Time            `json:"at"`
	Seen     map[string]SavedSeen `json:"seen"`
	LastRead time.Time            `json:"last_read"`
	Anchor   time.Time            `json:"anchor"`
	Counted  int                  `json:"counted"`
}

// SavedSeen is an entry within the overlap already applied.
type SavedSeen struct {
	Time    time.Time `json:"time"`
	Version string    `json:"version,omitempty"`
	Deleted bool      `json:"deleted,omitempty"`
}

// Save returns what Resume needs; ok is false while there is nothing to
// follow on from (no whole read yet, or the last Refresh failed).
func (f *Follower) Save() (s Saved, ok bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.cursor
	if c == nil || !c.started {
		return Saved{}, false, nil
	}
	names, err := f.rr.Names()
	if err != nil {
		return Saved{}, false, fmt.Errorf("save the names the view was read with: %w", err)
	}
	s = Saved{Names: names, Cursor: SavedCursor{At: c.at, LastRead: c.lastRead, Anchor: c.anchor, Counted: c.counted, Seen: make(map[string]SavedSeen, len(c.seen))}}
	for id, e := range c.seen {
		s.Cursor.Seen[id] = SavedSeen{Time: e.time, Version: e.version, Deleted: e.deleted}
	}
	for _, o := range f.view.Objects() {
		raw, err := json.Marshal(o)
		if err != nil {
			return Saved{}, false, fmt.Errorf("save %s: %w", o.Key(), err)
		}
		s.Objects = append(s.Objects, SavedObject{Kind: o.Key().Kind, Object: raw})
	}
	return s, true, nil
}

// Resume follows on from s as if the Follow or Refresh that left it had
// just returned; the next Refresh reads the log since. The adapter gets
// the saved names back first; any error leaves the Follower as it was.
func (f *Follower) Resume(ctx context.Context, s Saved) error {
	objs := make([]resource.Object, 0, len(s.Objects))
	for _, so := range s.Objects {
		o, err := resource.Decode(so.Kind, so.Object)
		if err != nil {
			return err
		}
		objs = append(objs, o)
	}
	rr, err := f.adapter.Restore(ctx, s.Names, objs)
	if err != nil {
		return fmt.Errorf("restore the names the view was read with: %w", err)
	}
	c := NewCursor(f.adapter, f.types, f.clock)
	c.started, c.at, c.lastRead, c.anchor, c.counted = true, s.Cursor.At, s.Cursor.LastRead, s.Cursor.Anchor, s.Cursor.Counted
	c.seen = make(map[string]seen, len(s.Cursor.Seen))
	for id, e := range maps.All(s.Cursor.Seen) {
		c.seen[id] = seen{time: e.Time, version: e.Version, deleted: e.Deleted}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cursor, f.view, f.rr = c, NewView(objs), rr
	return nil
}
