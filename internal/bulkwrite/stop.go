package bulkwrite

import (
	"context"
	"errors"
)

type stopKey struct{}

// WithStop returns ctx carrying stop: once stop is closed, Apply starts
// no more batches, finishes those already sent (ctx still bounds them)
// and returns ErrStopped. An interrupted apply that abandoned its
// requests would not know which of them the server wrote: it would
// report fewer objects written than the next plan finds.
func WithStop(ctx context.Context, stop <-chan struct{}) context.Context {
	return context.WithValue(ctx, stopKey{}, stop)
}

func stopped(ctx context.Context) bool {
	stop, _ := ctx.Value(stopKey{}).(<-chan struct{})
	if stop == nil {
		return false
	}
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// ErrStopped is an Apply stopped by WithStop's stop: what it reports
// written was written, the writes in flight were finished, and the rest
// was never sent.
var ErrStopped = errors.New("stopped: the writes in flight were finished, no more were sent")
