package bulkwrite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/clock/clocktest"
)

// TestAwaitOutcome: the look-up is repeated once a second while something
// is missing, until it is found or the deadline has passed; an error of
// the look-up ends the wait at once.
func TestAwaitOutcome(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	lookErr := errors.New("netbox unreachable")
	for _, tc := range []struct {
		name      string
		until     time.Duration // after start
		foundAt   int           // the look-up that finds everything; 0: never
		failAt    int           // the look-up that fails; 0: never
		wantLooks int
		wantErr   error
		wantSpent time.Duration
	}{
		{name: "found at once", until: 10 * time.Second, foundAt: 1, wantLooks: 1},
		{name: "found after three seconds", until: 10 * time.Second, foundAt: 4, wantLooks: 4, wantSpent: 3 * time.Second},
		{name: "never found: looked for until the deadline", until: 2500 * time.Millisecond, wantLooks: 4, wantSpent: 2500 * time.Millisecond},
		{name: "deadline already past: one look", until: -time.Second, wantLooks: 1},
		{name: "a failed look-up ends the wait", until: 10 * time.Second, failAt: 2, wantLooks: 2, wantErr: lookErr, wantSpent: time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := clocktest.NewInstant(start)
			looks := 0
			err := AwaitOutcome(context.Background(), clk, start.Add(tc.until), func(context.Context) (bool, error) {
				looks++
				if looks == tc.failAt {
					return false, lookErr
				}
				return looks != tc.foundAt, nil
			})
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
			if looks != tc.wantLooks {
				t.Errorf("looked %d times, want %d", looks, tc.wantLooks)
			}
			if spent := clk.Now().Sub(start); spent != tc.wantSpent {
				t.Errorf("waited %v, want %v", spent, tc.wantSpent)
			}
		})
	}
}
