package events

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	const lo, hi = time.Second, time.Minute
	tests := []struct {
		n    int
		r    float64
		want time.Duration
	}{
		{1, 0.5, time.Second},
		{2, 0.5, 2 * time.Second},
		{4, 0.5, 8 * time.Second},
		{4, 0, 6400 * time.Millisecond},
		{4, 0.75, 8800 * time.Millisecond},
		{1, 0, time.Second}, // jitter never goes below lo
		{7, 0.5, time.Minute},
		{7, 0.99, time.Minute}, // nor above hi
		{7, 0, 48 * time.Second},
		{1000, 0.5, time.Minute},
	}
	for _, tt := range tests {
		if got := backoff(lo, hi, tt.n, tt.r); got != tt.want {
			t.Errorf("backoff(%v, %v, %d, %v) = %v, want %v", lo, hi, tt.n, tt.r, got, tt.want)
		}
	}
}
