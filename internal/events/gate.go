package events

import (
	"context"
	"fmt"
	"sync"
)

// Gate says whether this agent may consume. Agents of one site share one
// queue, and the broker hands its messages round-robin to every consumer:
// a standby that consumed would acknowledge notifications it never acts on.
// So only the lease holder opens its gate; while it is closed the messages
// wait in the queue for whoever holds the lease.
type Gate struct {
	mu      sync.Mutex
	open    bool
	changed chan struct{} // closed and replaced on every change
}

// NewGate returns a closed gate.
func NewGate() *Gate { return &Gate{changed: make(chan struct{})} }

// Set opens or closes the gate; it never blocks.
func (g *Gate) Set(open bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.open == open {
		return
	}
	g.open = open
	close(g.changed)
	g.changed = make(chan struct{})
}

func (g *Gate) state() (open bool, changed <-chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.open, g.changed
}

// RunGated consumes as Run does, but only while g is open: closing it stops
// consuming, and messages not yet passed to out go back to the queue. It
// returns when ctx is done, with an error only for an invalid configuration.
func (c *Consumer) RunGated(ctx context.Context, g *Gate, out chan<- Event) error {
	if err := c.cfg.Validate(); err != nil {
		return fmt.Errorf("events consumer config: %w", err)
	}
	for {
		open, changed := g.state()
		if !open {
			select {
			case <-ctx.Done():
				return nil
			case <-changed:
				continue
			}
		}
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- c.Run(cctx, out) }()
		for open {
			select {
			case <-ctx.Done():
				cancel()
				return <-done
			case err := <-done:
				cancel()
				return err
			case <-changed:
				open, changed = g.state()
			}
		}
		cancel()
		if err := <-done; err != nil {
			return err
		}
		c.live.Store(false)
		c.log.Info("stopped consuming: this agent is a standby")
	}
}
