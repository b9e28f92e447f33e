// Package clocktest is the fake clock of every test that waits: time moves
// only when the test says so, or, for code that only sleeps, at once by
// exactly what was asked.
package clocktest

import (
	"slices"
	"sync"
	"time"

	"github.com/ipsync/ipsync/internal/clock"
)

// Start is where a Fake's time begins unless told otherwise.
var Start = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

// Fake is a clock.Clock moved by Advance. With Instant set, every timer
// fires as it is made and moves the time on by its duration, so code that
// sleeps between retries runs at once while the waits are recorded.
type Fake struct {
	Instant bool

	mu     sync.Mutex
	now    time.Time
	timers []*timer
	waits  []time.Duration
	armed  chan time.Duration
}

// New is a fake clock at start; NewInstant one whose timers fire at once.
func New(start time.Time) *Fake {
	return &Fake{now: start, armed: make(chan time.Duration, armedBuffer)}
}

// NewInstant is a fake clock at start whose timers fire as they are made.
func NewInstant(start time.Time) *Fake {
	c := New(start)
	c.Instant = true
	return c
}

// armedBuffer is how many timer notices Armed keeps unread; later ones are
// dropped, so a test that never reads them does not block the code.
const armedBuffer = 4096

// Armed receives the duration of every timer made, so a test knows the code
// under test is waiting before it moves time.
func (c *Fake) Armed() <-chan time.Duration { return c.armed }

var _ clock.Clock = (*Fake)(nil)

// Now is the fake time.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// NewTimer makes a timer that fires once Advance reaches its time.
func (c *Fake) NewTimer(d time.Duration) clock.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, d)
	select {
	case c.armed <- d:
	default:
	}
	if c.Instant && d > 0 {
		c.now = c.now.Add(d)
	}
	t := &timer{clock: c, at: c.now.Add(d), ch: make(chan time.Time, 1)}
	if d <= 0 || c.Instant {
		t.ch <- c.now
		return t
	}
	c.timers = append(c.timers, t)
	return t
}

// Advance moves time on and fires the timers that came due.
func (c *Fake) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.at.After(c.now) {
			kept = append(kept, t)
			continue
		}
		t.ch <- c.now
	}
	c.timers = kept
}

// Waits are the durations of the timers made so far, in order.
func (c *Fake) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.waits)
}

// Deadlines are the times of the timers waiting for Advance, so a test can
// see that the code under test waits for what it should before moving time.
func (c *Fake) Deadlines() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	at := make([]time.Time, 0, len(c.timers))
	for _, t := range c.timers {
		at = append(at, t.at)
	}
	return at
}

// Pending is how many timers wait for Advance.
func (c *Fake) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

type timer struct {
	clock *Fake
	at    time.Time
	ch    chan time.Time
}

func (t *timer) C() <-chan time.Time { return t.ch }

func (t *timer) Stop() bool {
	c := t.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, o := range c.timers {
		if o == t {
			c.timers = slices.Delete(c.timers, i, i+1)
			return true
		}
	}
	return false
}
