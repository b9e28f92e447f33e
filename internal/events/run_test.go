package events

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/clock/clocktest"
)

type state struct {
	connected bool
	err       error
}

// A broker that is unreachable at start: every attempt fails, is reported,
// and is followed by a growing, capped wait on the injected clock.
func TestRunRetriesUnreachableBroker(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		// Hang up on every client, like a port that is up but not AMQP.
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.Close()
		}
	}()

	clock := clocktest.New(clocktest.Start)
	states := make(chan state, 16)
	c := NewConsumer(Config{
		URL:          "amqp://guest:guest@" + ln.Addr().String() + "/",
		Queue:        "ipsync-test",
		ReconnectMin: time.Second,
		ReconnectMax: 4 * time.Second,
	}, discard(), WithClock(clock), WithStateHook(func(connected bool, err error) {
		states <- state{connected, err}
	}))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, make(chan Event)) }()

	bases := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second}
	for i, base := range bases {
		s := <-states
		if s.connected || s.err == nil {
			t.Fatalf("attempt %d: state = %+v, want disconnected with an error", i+1, s)
		}
		wait := <-clock.Armed()
		lo, hi := max(time.Duration(float64(base)*0.8), time.Second), min(time.Duration(float64(base)*1.2), 4*time.Second)
		if wait < lo || wait > hi {
			t.Errorf("attempt %d: waits %v, want within [%v, %v]", i+1, wait, lo, hi)
		}
		clock.Advance(wait)
	}
	<-states // the attempt the last Advance started
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run() = %v, want nil after cancel", err)
	}
	var last state
	for len(states) > 0 {
		last = <-states
	}
	if last.connected || last.err != nil {
		t.Errorf("final state = %+v, want disconnected without error", last)
	}
}

func TestRunRejectsInvalidConfig(t *testing.T) {
	c := NewConsumer(Config{URL: "http://example/"}, discard())
	err := c.Run(t.Context(), make(chan Event))
	if err == nil {
		t.Fatal("Run() = nil, want a config error")
	}
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) || len(joined.Unwrap()) != 2 {
		t.Errorf("Run() = %v, want the url and queue errors", err)
	}
}
