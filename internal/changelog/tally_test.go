package changelog

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/clock/clocktest"
)

// TestCursorBehindTheOverlap: entries that turn up more than the overlap
// after their time, or that are pruned, are never returned by a read of
// the log from the overlap on; the cursor must notice them instead of
// following on as if nothing happened.
func TestCursorBehindTheOverlap(t *testing.T) {
	types := []string{"ipam.vlan"}
	e := func(id string, at time.Duration) Entry { return entry(id, at, "ipam.vlan", "v-"+id, false) }
	tests := []struct {
		name  string
		steps []func(l *memLog) // each followed by a Next
		// untrusted is the step whose Next must fail (1-based), 0 for none.
		untrusted int
		reason    string
	}{
		{name: "changes within the overlap", steps: []func(*memLog){
			func(l *memLog) { l.entries = append(l.entries, e("e2", 20*time.Minute)) },
			func(l *memLog) { l.entries = append(l.entries, e("e3", 25*time.Minute), e("e4", 19*time.Minute)) },
		}},
		{name: "an entry visible long after its time", steps: []func(*memLog){
			func(l *memLog) { l.entries = append(l.entries, e("e2", 20*time.Minute)) },
			func(l *memLog) { l.entries = append(l.entries, e("late", 5*time.Minute)) },
		}, untrusted: 2, reason: "appeared more than"},
		{name: "the newest entry seen pruned", steps: []func(*memLog){
			func(l *memLog) { l.entries = nil },
		}, untrusted: 1, reason: "gone from the log"},
		{name: "entries read before pruned", steps: []func(*memLog){
			func(l *memLog) { l.entries = append(l.entries, e("e2", 20*time.Minute)) },
			func(l *memLog) { l.entries = slices.DeleteFunc(l.entries, func(x Entry) bool { return x.ID == "e1" }) },
		}, untrusted: 2, reason: "were pruned"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &memLog{entries: []Entry{e("e1", 0)}}
			c := NewCursor(log, types, clocktest.New(t0))
			if err := c.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			for i, step := range tt.steps {
				step(log)
				_, err := c.Next(context.Background())
				u, untrusted := errors.AsType[*UntrustedError](err)
				if want := i+1 == tt.untrusted; untrusted != want || err != nil && !untrusted {
					t.Fatalf("step %d: Next() error = %v, want untrusted %v", i+1, err, want)
				}
				if untrusted {
					if !strings.Contains(u.Reason, tt.reason) {
						t.Errorf("step %d: reason %q, want it to say %q", i+1, u.Reason, tt.reason)
					}
					return
				}
			}
		})
	}
}

// TestCursorReadsTheOverlapOnlyWhenItChanged: a Next reads the log from
// Recent before the newest entry seen, and the whole overlap only when
// counting it shows something there it has not applied.
func TestCursorReadsTheOverlapOnlyWhenItChanged(t *testing.T) {
	types := []string{"ipam.vlan"}
	e := func(id string, at time.Duration, deleted bool) Entry {
		return versioned(entry(id, at, "ipam.vlan", "v-"+id, deleted), map[bool]string{false: "update:" + id, true: "delete:" + id}[deleted])
	}
	newest := 8 * time.Minute
	tests := []struct {
		name   string
		change func(l *memLog)
		whole  bool // read from the overlap's start
		want   []string
	}{
		{name: "a new entry", change: func(l *memLog) { l.entries = append(l.entries, e("e9", newest+time.Second, false)) }, want: []string{"v-e9"}},
		{name: "nothing new", change: func(*memLog) {}},
		{name: "an entry committed late, behind Recent", whole: true,
			change: func(l *memLog) { l.entries = append(l.entries, e("late", newest-3*time.Minute, false)) }, want: []string{"v-late"}},
		{name: "an entry rewritten to a delete, behind Recent", whole: true,
			change: func(l *memLog) { l.entries[1] = e("e2", 2*time.Minute, true) }, want: []string{"v-e2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &memLog{entries: []Entry{e("e1", 0, false), e("e2", 2*time.Minute, false), e("e3", newest, false)}}
			c := NewCursor(log, types, clocktest.New(t0.Add(newest)))
			if err := c.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			log.reads = nil
			tt.change(log)
			ch, err := c.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			from := t0.Add(newest - Recent)
			if tt.whole {
				from = t0.Add(newest - Overlap)
			}
			if len(log.reads) != 1 || !log.reads[0].Equal(from) {
				t.Errorf("Next read the log from %v, want once from %v", log.reads, from)
			}
			var got []string
			for id := range ch.Objects["ipam.vlan"] {
				got = append(got, id)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Next() = %v, want %v", got, tt.want)
			}
		})
	}
}
