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
