package bulkwrite

import (
	"context"
	"time"

	"github.com/ipsync/ipsync/internal/clock"
)

// OutcomeEvery is how often AwaitOutcome looks again.
const OutcomeEvery = time.Second

// AwaitOutcome resolves a create whose answer was lost before anything is
// sent again, where the server would not refuse a second copy: its first
// attempt may still be in the server's hands (a stalled worker, a long
// transaction, a request queued behind others), and a resend that the
// server takes before that attempt commits writes the objects twice. look
// finds what the first attempt wrote and says whether anything is still
// missing; AwaitOutcome asks it until nothing is, or until until, the
// moment by which the server has finished or abandoned every request sent
// before it (its own request deadline after the first send). Only then is
// a missing object certainly not coming, and safe to send again.
func AwaitOutcome(ctx context.Context, clk clock.Clock, until time.Time, look func(ctx context.Context) (missing bool, err error)) error {
	for {
		missing, err := look(ctx)
		if err != nil || !missing {
			return err
		}
		left := until.Sub(clk.Now())
		if left <= 0 {
			return nil
		}
		if err := clock.Sleep(ctx, clk, min(left, OutcomeEvery)); err != nil {
			return err
		}
	}
}
