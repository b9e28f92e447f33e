package events

import "time"

// backoff is the wait before reconnect attempt n (1 after the first
// failure): lo doubled per consecutive failure, spread by ±20% with r uniform
// in [0, 1) so that the agents of many sites do not reconnect in step after
// a broker restart, and kept within [lo, hi].
func backoff(lo, hi time.Duration, n int, r float64) time.Duration {
	d := lo
	for i := 1; i < n && d < hi; i++ {
		d *= 2
	}
	d = time.Duration(float64(min(d, hi)) * (0.8 + 0.4*r))
	return min(max(d, lo), hi)
}
