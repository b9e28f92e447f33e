package agent

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	const lo, hi = time.Second, time.Minute
	tests := []struct {
		n      int
		frac   float64
		r      float64
		want   time.Duration
		reason string
	}{
		{1, 0, 0, time.Second, "first retry waits the minimum"},
		{2, 0, 0, 2 * time.Second, "doubles"},
		{4, 0, 0, 8 * time.Second, "doubles per failure"},
		{7, 0, 0, time.Minute, "capped"},
		{1000, 0, 0, time.Minute, "no overflow"},
		{1, 0.1, 0, 900 * time.Millisecond, "jitter down"},
		{1, 0.1, 0.5, time.Second, "jitter centre"},
		{7, 0.1, 0.999, time.Minute, "jitter never above the cap"},
	}
	for _, tt := range tests {
		if got := backoff(lo, hi, tt.n, tt.frac, tt.r); got != tt.want {
			t.Errorf("backoff(%v, %v, %d, %v, %v) = %v, want %v (%s)", lo, hi, tt.n, tt.frac, tt.r, got, tt.want, tt.reason)
		}
	}
}

func TestJittered(t *testing.T) {
	tests := []struct {
		frac, r float64
		want    time.Duration
	}{
		{0, 0.7, 10 * time.Minute},
		{0.1, 0, 9 * time.Minute},
		{0.1, 0.5, 10 * time.Minute},
		{0.1, 1, 11 * time.Minute},
		{5, 0, time.Minute}, // clamped: never zero or negative
	}
	for _, tt := range tests {
		if got := jittered(10*time.Minute, tt.frac, tt.r); got != tt.want {
			t.Errorf("jittered(10m, %v, %v) = %v, want %v", tt.frac, tt.r, got, tt.want)
		}
	}
}
