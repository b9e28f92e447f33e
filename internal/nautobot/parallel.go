package nautobot

import (
	"context"
	"sync"
)

// parallel runs tasks, at most n at a time, and returns the first error;
// the first failure cancels the others.
func parallel(ctx context.Context, n int, tasks []func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, max(n, 1))
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for _, task := range tasks {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			if err := task(ctx); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		})
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return first
}
