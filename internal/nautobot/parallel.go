package nautobot

import (
	"context"

	"golang.org/x/sync/errgroup"
)

// parallel runs tasks, at most n at a time, and returns the first error;
// the first failure cancels the others.
func parallel(ctx context.Context, n int, tasks []func(context.Context) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(max(n, 1))
	for _, task := range tasks {
		g.Go(func() error { return task(ctx) })
	}
	return g.Wait()
}
