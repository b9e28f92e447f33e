package agent

import (
	"math"
	"time"
)

// jittered spreads d by ±frac, r being uniform in [0, 1), so that agents
// started together do not hit the APIs in step.
func jittered(d time.Duration, frac, r float64) time.Duration {
	frac = min(max(frac, 0), 0.9)
	return time.Duration(math.Round(float64(d) * (1 + frac*(2*r-1))))
}

// backoff is the wait before retry n (1 for the first retry): lo doubled
// per failure, jittered, never above hi.
func backoff(lo, hi time.Duration, n int, frac, r float64) time.Duration {
	d := lo
	for i := 1; i < n && d < hi; i++ {
		d *= 2
	}
	return min(jittered(min(d, hi), frac, r), hi)
}
