// Package parallel runs fallible tasks side by side with a limit: the
// Nautobot client's sweeps and batches and the Neutron reader's collections
// share it.
package parallel

import (
	"context"

	"golang.org/x/sync/errgroup"
)

// Run runs tasks, at most limit at a time (at least one), and returns the
// first error; the first failure cancels the context the others run with,
// so a read or write that cannot succeed as a whole stops early.
func Run(ctx context.Context, limit int, tasks []func(context.Context) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(max(limit, 1))
	for _, task := range tasks {
		g.Go(func() error { return task(ctx) })
	}
	return g.Wait()
}
