package parallel

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

func TestRun(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		limit   int
		tasks   int
		failAt  int // index of the failing task; -1 for none
		wantErr error
	}{
		{"all succeed", 3, 20, -1, nil},
		{"limit below one runs one at a time", 0, 5, -1, nil},
		{"a failure is returned", 2, 10, 4, boom},
		{"no tasks", 4, 0, -1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var running, peak, ran atomic.Int32
			tasks := make([]func(context.Context) error, tt.tasks)
			for i := range tasks {
				tasks[i] = func(ctx context.Context) error {
					n := running.Add(1)
					defer running.Add(-1)
					for {
						p := peak.Load()
						if n <= p || peak.CompareAndSwap(p, n) {
							break
						}
					}
					ran.Add(1)
					if i == tt.failAt {
						return boom
					}
					return nil
				}
			}
			err := Run(context.Background(), tt.limit, tasks)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("Run error = %v, want %v", err, tt.wantErr)
			}
			if limit := int32(max(tt.limit, 1)); peak.Load() > limit {
				t.Errorf("%d tasks ran at once, limit %d", peak.Load(), limit)
			}
			if tt.wantErr == nil && int(ran.Load()) != tt.tasks {
				t.Errorf("%d of %d tasks ran", ran.Load(), tt.tasks)
			}
		})
	}
}

// TestRunCancelsOthers: after a failure the tasks still running see their
// context cancelled.
func TestRunCancelsOthers(t *testing.T) {
	boom := errors.New("boom")
	started := make(chan struct{})
	var cancelled atomic.Bool
	err := Run(context.Background(), 2, []func(context.Context) error{
		func(ctx context.Context) error {
			close(started)
			<-ctx.Done()
			cancelled.Store(true)
			return ctx.Err()
		},
		func(context.Context) error {
			<-started
			return boom
		},
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Run error = %v, want %v", err, boom)
	}
	if !cancelled.Load() {
		t.Error("the other task's context was not cancelled")
	}
}
