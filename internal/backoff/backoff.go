// Package backoff is the one retry schedule of ipsync: the agent's retries
// of failed syncs, the event consumer's reconnects and the Nautobot client's
// retried requests all wait by it.
package backoff

import (
	"math"
	"time"
)

// Policy is an exponential backoff: Min before the first retry, doubled per
// consecutive failure, never above Max, spread by ±Jitter (a fraction, at
// most 0.9) so that many agents failing together do not retry in step.
type Policy struct {
	Min, Max time.Duration
	Jitter   float64
}

// Delay is the wait before retry n (1 for the first), with r uniform in
// [0, 1) choosing the jitter. It stays within [Min, Max] whatever r is.
func (p Policy) Delay(n int, r float64) time.Duration {
	hi := max(p.Max, p.Min)
	d := p.Min
	for i := 1; i < n && d < hi; i++ {
		d *= 2
	}
	return min(max(Jittered(min(d, hi), p.Jitter, r), p.Min), hi)
}

// Jittered spreads d by ±frac, with r uniform in [0, 1). frac is clamped
// to [0, 0.9] so that the result is never zero or negative.
func Jittered(d time.Duration, frac, r float64) time.Duration {
	frac = min(max(frac, 0), 0.9)
	return time.Duration(math.Round(float64(d) * (1 + frac*(2*r-1))))
}
