package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/ipsync/ipsync/internal/bulkwrite"
	"github.com/ipsync/ipsync/internal/reconcile"
)

type secondKey struct{}

// WithSecondInterrupt returns ctx, canceled at the first interrupt, with
// second, canceled at the second. Between the two, apply finishes the
// writes it has sent and sends no more, so that what it reports written
// is what the server holds; the second abandons them.
func WithSecondInterrupt(ctx, second context.Context) context.Context {
	return context.WithValue(ctx, secondKey{}, second)
}

// secondInterrupt is the context WithSecondInterrupt gave ctx, or ctx.
func secondInterrupt(ctx context.Context) context.Context {
	if second, ok := ctx.Value(secondKey{}).(context.Context); ok {
		return second
	}
	return ctx
}

// Interrupts is the context Main runs with, as a command: canceled at
// the first interrupt or SIGTERM, with its second canceled at the next
// one. done releases the signals.
func Interrupts() (ctx context.Context, done func()) {
	second, abandon := context.WithCancel(context.Background())
	ctx, stop := context.WithCancel(second)
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-signals
		stop()
		<-signals
		abandon()
	}()
	return WithSecondInterrupt(ctx, second), func() {
		signal.Stop(signals)
		abandon()
	}
}

// applyInterruptible applies r; an interrupt meanwhile lets the writes
// in flight finish and sends no more (a second one abandons them).
func (e *env) applyInterruptible(ctx context.Context, j *job, r *reconcile.Result) (int, error) {
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case <-ctx.Done():
			fmt.Fprintln(e.stderr, "interrupted: finishing the writes already sent, sending no more; interrupt again to abandon them")
		case <-finished:
		}
	}()
	return j.apply(bulkwrite.WithStop(secondInterrupt(ctx), ctx.Done()), r)
}
