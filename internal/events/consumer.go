package events

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync/atomic"

	"github.com/ipsync/ipsync/internal/backoff"
	"github.com/ipsync/ipsync/internal/clock"
)

// Consumer reads notifications from its own queue bound to Neutron's
// notification exchange, reconnecting for as long as it runs.
type Consumer struct {
	cfg   Config
	log   *slog.Logger
	clock clock.Clock
	state func(connected bool, err error)
	// resume is the clean stop the first session checks the queue
	// against (WithResume); nil after it.
	resume *resume
	// live says a session consumed until Run's context ended it: no
	// connection lost since it began. Only then may Mark vouch for the
	// queue.
	live atomic.Bool
}

// Option adjusts a Consumer.
type Option func(*Consumer)

// WithClock replaces the wall clock that times the reconnect backoff.
func WithClock(c clock.Clock) Option { return func(k *Consumer) { k.clock = c } }

// WithStateHook registers f to learn about the connection: (true, nil) once
// the queue is being consumed, (false, err) after every failed attempt or lost
// connection, and (false, nil) when Run stops. f runs on Run's goroutine and
// must not block.
func WithStateHook(f func(connected bool, err error)) Option {
	return func(k *Consumer) { k.state = f }
}

// NewConsumer returns a consumer for cfg, with defaults applied to its zero
// fields. The configuration is validated by Run.
func NewConsumer(cfg Config, logger *slog.Logger, opts ...Option) *Consumer {
	c := &Consumer{
		cfg:   cfg.WithDefaults(),
		log:   logger,
		clock: clock.Real(),
		state: func(bool, error) {},
	}
	for _, o := range opts {
		o(c)
	}
	c.log = c.log.With("component", "events", "queue", c.cfg.Queue)
	return c
}

// Run consumes until ctx is done and then returns nil; it returns an error
// only for an invalid configuration. Connection failures, at start or later,
// are logged, reported to the state hook and retried with backoff.
//
// Each message is acknowledged after its events were accepted by out, so a
// slow reader holds messages in the queue rather than losing them; messages
// that cannot be parsed are logged and acknowledged, never redelivered.
// Delivery is at least once: after a reconnect, events may repeat.
func (c *Consumer) Run(ctx context.Context, out chan<- Event) error {
	if err := c.cfg.Validate(); err != nil {
		return fmt.Errorf("events consumer config: %w", err)
	}
	log := c.log.With("url", c.cfg.RedactedURL(), "exchange", c.cfg.Exchange, "routing_key", c.cfg.RoutingKey())
	failures := 0
	for {
		connected, err := c.session(ctx, log, out)
		if ctx.Err() != nil {
			c.state(false, nil)
			log.Info("events consumer stopped")
			return nil
		}
		if connected {
			failures = 0
		}
		failures++
		c.state(false, err)
		// ±20%, so that the agents of many sites do not reconnect in step
		// after a broker restart.
		wait := backoff.Policy{Min: c.cfg.ReconnectMin, Max: c.cfg.ReconnectMax, Jitter: 0.2}.Delay(failures, rand.Float64())
		log.Warn("rabbitmq unavailable, retrying", "err", err, "attempt", failures, "retry_in", wait)
		t := c.clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			c.state(false, nil)
			log.Info("events consumer stopped")
			return nil
		case <-t.C():
		}
	}
}
