package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryAfterMax bounds how long a Retry-After may hold a run.
const retryAfterMax = 10 * time.Minute

// retryAfter reads a Retry-After header, seconds or an HTTP date, as a
// wait from now; 0 when there is no usable header.
func retryAfter(h string, now time.Time) time.Duration {
	var d time.Duration
	if n, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && n >= 0 {
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(h); err == nil {
		d = t.Sub(now)
	}
	switch {
	case d <= 0:
		return 0
	case d > retryAfterMax:
		return retryAfterMax
	}
	return d
}
