package changelog

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ipsync/ipsync/internal/clock"
)

// Entry is one record of a target's change log.
type Entry struct {
	ID       string    // the record's own id
	Time     time.Time // when the target recorded the change, by its clock
	Type     string    // the changed object's content type, "ipam.vlan"
	ObjectID string
	// Name is the object's name after the change (object_repr), which
	// tells whether a lookup's change leaves every object reading the same.
	Name    string
	Deleted bool
	// Version is what the record says now, where a target rewrites a
	// record in place: Nautobot, when one change context (a Job, a script
	// under web_request_context) changes an object again, updates that
	// object's record (same id, same time, new data; an update then a
	// delete turns its action to delete). A record seen before under
	// another version is a change again. Empty where records are never
	// rewritten.
	Version string
}

// Log reads a target's change log, restricted to some content types.
type Log interface {
	// Newest is the newest entry of the types; ok is false when the log
	// has none.
	Newest(ctx context.Context, types []string) (e Entry, ok bool, err error)
	// Since returns every entry of the types recorded at or after t (all
	// of them when t is zero). It fails rather than return part of them:
	// the pages must add up to the count the target gave. Where the
	// target cannot select the types (Nautobot 2.4) it returns entries of
	// every type, as Count counts them.
	Since(ctx context.Context, types []string, t time.Time) ([]Entry, error)
	// Count is how many entries Since would return that were recorded at
	// or after from (from the log's start when zero) and before to; with
	// deletes, how many of them are deletes.
	Count(ctx context.Context, types []string, from, to time.Time, deletes bool) (int, error)
}

// Overlap is how far back each read of the log reaches before the newest
// entry already seen. A target stamps an entry when the change is made but
// the entry becomes visible only when its transaction commits, so a change
// made before the newest entry seen may appear after it: a bulk write of a
// thousand objects holds its transaction open for tens of seconds, and a
// target with several workers adds their clocks' disagreement. Entries
// within the overlap already applied are skipped by id, so the overlap
// never costs a second reread; and it is read only when counting it shows
// something new there (see Recent).
const Overlap = 10 * time.Minute

// Recent is how far back before the newest entry seen each read of the log
// returns entries. The rest of the overlap is counted instead: while it
// holds exactly the entries already applied, and as many deletes, none
// turned up late there and none was rewritten into a delete, and reading
// it again would return nothing new; otherwise it is read. A record
// rewritten in place by a later change that is not a delete keeps its
// count; the change stamps the object, which the check of the view finds.
// The overlap is most of a read's cost on a central target, where every
// agent's changes of the last minutes are in it.
const Recent = time.Minute

// MaxGap is the longest time between two reads of the log that a cursor
// still trusts. Targets prune their logs (Nautobot's and NetBox's
// CHANGELOG_RETENTION, 90 days by default); a cursor left for a day is read
// whole again anyway by the agent's daily sweep.
const MaxGap = 24 * time.Hour

// UntrustedError says the log cannot be trusted to name every change since
// the last read; the caller must read the target whole.
type UntrustedError struct{ Reason string }

func (e *UntrustedError) Error() string { return "change log not trusted: " + e.Reason }

// UnreadableError is a change log that could not be read where a whole
// read starts following it: the target may be down, or the token may not
// be allowed to view the log. The caller may read the target whole.
type UnreadableError struct{ Err error }

func (e *UnreadableError) Error() string { return "read the change log: " + e.Err.Error() }
func (e *UnreadableError) Unwrap() error { return e.Err }

// Cursor is a position in a target's change log: the newest entry seen and
// the entries within Overlap of it, already applied.
type Cursor struct {
	log   Log
	types []string
	clock clock.Clock

	started  bool
	at       time.Time       // the newest entry's time, by the target's clock
	seen     map[string]seen // entries at or after at-Overlap already applied
	lastRead time.Time       // by our clock, for MaxGap

	// anchor is where the log was first read since Start, and counted
	// how many entries at or after it have been read: an entry that
	// turns up behind the overlap, or one pruned, changes how many the
	// log holds there.
	anchor  time.Time
	counted int
}

// seen is an entry already applied: when it was recorded, and as what.
type seen struct {
	time    time.Time
	version string
	deleted bool
}

// NewCursor returns a cursor over the entries of types; it must be Started
// before the first Next.
func NewCursor(log Log, types []string, c clock.Clock) *Cursor {
	return &Cursor{log: log, types: types, clock: c}
}

// Start puts the cursor at the end of the log. Called before a full read of
// the target, it makes Next return every change the read may have missed:
// those recorded during the read, and those committed late within Overlap.
func (c *Cursor) Start(ctx context.Context) error {
	now := c.clock.Now()
	newest, ok, err := c.log.Newest(ctx, c.types)
	if err != nil {
		return fmt.Errorf("read the change log's end: %w", err)
	}
	c.at, c.seen, c.anchor, c.counted = time.Time{}, map[string]seen{}, time.Time{}, 0
	if ok {
		c.at, c.anchor = newest.Time, newest.Time.Add(-Overlap)
		// The entries within the overlap are reflected in the read that
		// follows; remembering them keeps the first Next from rereading them.
		recent, err := c.log.Since(ctx, c.types, c.at.Add(-Overlap))
		if err != nil {
			return fmt.Errorf("read the change log's end: %w", err)
		}
		for _, e := range recent {
			c.seen[e.ID] = seen{e.Time, e.Version, e.Deleted}
			if e.Time.After(c.at) {
				c.at = e.Time
			}
		}
		c.counted = len(c.seen)
		c.evict()
	}
	c.started, c.lastRead = true, now
	return nil
}

// Next returns the changes recorded since the last Start or Next: for each
// changed object, whether it was deleted. On an *UntrustedError (or any
// error) the cursor is left unstarted: the caller reads the target whole
// after a new Start.
func (c *Cursor) Next(ctx context.Context) (Changes, error) {
	if !c.started {
		return Changes{}, &UntrustedError{Reason: "no read of the target to follow on from"}
	}
	c.started = false
	now := c.clock.Now()
	if gap := now.Sub(c.lastRead); gap > MaxGap {
		return Changes{}, &UntrustedError{Reason: fmt.Sprintf("the log was last read %v ago, more than %v", gap.Round(time.Second), MaxGap)}
	}
	var since time.Time
	if !c.at.IsZero() {
		since = c.at.Add(-Overlap)
	}
	entries, from, err := c.read(ctx, since)
	if err != nil {
		return Changes{}, err
	}
	if err := c.witness(entries, from); err != nil {
		return Changes{}, err
	}
	ch := Changes{Objects: map[string]map[string]bool{}, Names: map[string]map[string]string{}}
	at := c.at
	for _, e := range entries {
		before, rewritten := c.seen[e.ID]
		if !rewritten {
			c.counted++
		}
		if rewritten && before.version == e.Version || !since.IsZero() && e.Time.Before(since) || !slices.Contains(c.types, e.Type) {
			continue
		}
		// An entry this far behind the newest one seen came out of a
		// transaction, or off a clock, that the overlap barely covers;
		// one a little later would not be covered at all. A record
		// rewritten in place keeps the time of its first change.
		if !rewritten && !c.at.IsZero() && e.Time.Before(c.at.Add(-Overlap/2)) {
			return Changes{}, &UntrustedError{Reason: fmt.Sprintf("entry %s recorded at %s appeared after entries up to %s: the target's commits or clocks lag by more than %v",
				e.ID, e.Time.Format(time.RFC3339Nano), c.at.Format(time.RFC3339Nano), Overlap/2)}
		}
		ch.Entries++
		ch.add(e)
		if e.Time.After(at) {
			at = e.Time
		}
	}
	// Applying the changes is the caller's; the cursor moves now and the
	// caller restarts it if it fails.
	c.at = at
	for _, e := range entries {
		c.seen[e.ID] = seen{e.Time, e.Version, e.Deleted}
	}
	c.evict()
	// Counted unchanged before from, the log holds exactly the entries
	// applied before the overlap's new start, which is not later.
	if from.Equal(since) || from.Before(at.Add(-Overlap)) {
		if err := c.tally(ctx); err != nil {
			return Changes{}, err
		}
	}
	c.started, c.lastRead = true, now
	return ch, nil
}

// read returns the entries recorded from since on that the log may hold
// unapplied, and from, where they start: since itself, or Recent before
// the newest entry seen when the entries between since and that are
// counted unchanged.
func (c *Cursor) read(ctx context.Context, since time.Time) ([]Entry, time.Time, error) {
	from := since
	if !c.at.IsZero() {
		tail := c.at.Add(-Recent)
		same, err := c.unchangedBefore(ctx, since, tail)
		if err != nil {
			return nil, time.Time{}, err
		}
		if same {
			from = tail
		}
	}
	entries, err := c.log.Since(ctx, c.types, from)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("read the change log: %w", err)
	}
	return entries, from, nil
}

// unchangedBefore says whether the log holds, from the anchor to tail,
// exactly the entries applied, and from since to tail as many deletes:
// then a read from since would return nothing new before tail. The deletes
// are counted only where an entry there may be rewritten (it has a
// version, and is not a delete already).
func (c *Cursor) unchangedBefore(ctx context.Context, since, tail time.Time) (bool, error) {
	want, deletes, rewritable := c.counted, 0, false
	for _, s := range c.seen {
		switch {
		case !s.time.Before(tail):
			want--
		case s.time.Before(since):
		case s.deleted:
			deletes++
		default:
			rewritable = rewritable || s.version != ""
		}
	}
	n, err := c.log.Count(ctx, c.types, c.anchor, tail, false)
	if err != nil {
		return false, fmt.Errorf("count the change log: %w", err)
	}
	if n != want || !rewritable {
		return n == want, nil
	}
	d, err := c.log.Count(ctx, c.types, since, tail, true)
	if err != nil {
		return false, fmt.Errorf("count the change log's deletes: %w", err)
	}
	return d == deletes, nil
}

// evict forgets the entries the next read will not return.
func (c *Cursor) evict() {
	for id, s := range c.seen {
		if s.time.Before(c.at.Add(-Overlap)) {
			delete(c.seen, id)
		}
	}
}

// witness fails when an entry read before, which the log must return
// again, is gone: the target prunes its log (Nautobot's Logs Cleanup job,
// NetBox's CHANGELOG_RETENTION) of entries this recent, and may have
// pruned entries no read has returned yet. Pruning goes by age, so the
// newest entry seen, which a read always returns again, witnesses any
// pruning of the entries after it.
func (c *Cursor) witness(entries []Entry, from time.Time) error {
	returned := make(map[string]bool, len(entries))
	for _, e := range entries {
		returned[e.ID] = true
	}
	for id, s := range c.seen {
		if !returned[id] && !s.time.Before(from) {
			return &UntrustedError{Reason: fmt.Sprintf("entry %s recorded at %s is gone from the log: it is pruned of entries younger than %v, which may have gone unread",
				id, s.time.Format(time.RFC3339Nano), Overlap)}
		}
	}
	return nil
}

// tally fails when the log holds a different number of entries between
// the anchor and the overlap than the reads returned. More: an entry
// became visible more than the overlap after its own time (a long
// transaction, such as Nautobot's bulk delete, or an application server
// whose clock is behind), and no read will return it. Fewer: entries
// already read were pruned, and unread ones may have been with them.
func (c *Cursor) tally(ctx context.Context) error {
	to := c.at.Add(-Overlap)
	if c.at.IsZero() || !to.After(c.anchor) {
		return nil
	}
	n, err := c.log.Count(ctx, c.types, c.anchor, to, false)
	if err != nil {
		return fmt.Errorf("count the change log: %w", err)
	}
	// Every entry still seen is at or after to; those counted before it
	// have left the overlap.
	want := c.counted - len(c.seen)
	switch {
	case n > want:
		return &UntrustedError{Reason: fmt.Sprintf("%d entries recorded between %s and %s appeared more than %v after their time: the target's commits or clocks lag",
			n-want, c.anchor.Format(time.RFC3339Nano), to.Format(time.RFC3339Nano), Overlap)}
	case n < want:
		return &UntrustedError{Reason: fmt.Sprintf("%d entries recorded between %s and %s were pruned from the log since they were read; others may have gone unread",
			want-n, c.anchor.Format(time.RFC3339Nano), to.Format(time.RFC3339Nano))}
	}
	return nil
}

// Changes are the objects the log says changed, by content type and id.
type Changes struct {
	// Objects maps a content type to its changed objects' ids, each true
	// when the object was deleted.
	Objects map[string]map[string]bool
	// Names maps a content type to its changed objects' names after their
	// newest change.
	Names map[string]map[string]string
	// Entries is how many log entries were new.
	Entries int
	newest  map[string]time.Time // of each object's entry in Names
}

// add records e. Targets never reuse an id, so a delete is final.
func (ch *Changes) add(e Entry) {
	ids := ch.Objects[e.Type]
	if ids == nil {
		ids = map[string]bool{}
		ch.Objects[e.Type] = ids
		ch.Names[e.Type] = map[string]string{}
	}
	ids[e.ObjectID] = ids[e.ObjectID] || e.Deleted
	if ch.newest == nil {
		ch.newest = map[string]time.Time{}
	}
	if k := e.Type + " " + e.ObjectID; !e.Time.Before(ch.newest[k]) {
		ch.newest[k] = e.Time
		ch.Names[e.Type][e.ObjectID] = e.Name
	}
}

// Drop takes an object's changes out of ch.
func (ch Changes) Drop(typ, id string) {
	delete(ch.Objects[typ], id)
	delete(ch.Names[typ], id)
	if len(ch.Objects[typ]) == 0 {
		delete(ch.Objects, typ)
		delete(ch.Names, typ)
	}
}

// Empty reports whether nothing changed.
func (ch Changes) Empty() bool { return len(ch.Objects) == 0 }

// DropNamed takes out of ch the changes of objects of typ whose name
// after the change begins with prefix.
func (ch Changes) DropNamed(typ, prefix string) {
	for id := range ch.Objects[typ] {
		if strings.HasPrefix(ch.Names[typ][id], prefix) {
			ch.Drop(typ, id)
		}
	}
}
