package backoff

import (
	"testing"
	"time"
)

func TestDelay(t *testing.T) {
	p := Policy{Min: time.Second, Max: time.Minute, Jitter: 0.2}
	tests := []struct {
		n    int
		r    float64
		want time.Duration
		why  string
	}{
		{1, 0.5, time.Second, "first retry waits the minimum"},
		{2, 0.5, 2 * time.Second, "doubles"},
		{4, 0.5, 8 * time.Second, "doubles per failure"},
		{4, 0, 6400 * time.Millisecond, "jitter down"},
		{4, 0.75, 8800 * time.Millisecond, "jitter up"},
		{1, 0, time.Second, "jitter never goes below the minimum"},
		{7, 0.99, time.Minute, "nor above the maximum"},
		{7, 0, 48 * time.Second, "jitter down from the cap"},
		{1000, 0.5, time.Minute, "no overflow"},
		{0, 0.5, time.Second, "n below 1 counts as the first retry"},
	}
	for _, tt := range tests {
		if got := p.Delay(tt.n, tt.r); got != tt.want {
			t.Errorf("%+v.Delay(%d, %v) = %v, want %v (%s)", p, tt.n, tt.r, got, tt.want, tt.why)
		}
	}
}

func TestDelayMaxBelowMin(t *testing.T) {
	p := Policy{Min: 5 * time.Second, Max: time.Second}
	if got := p.Delay(3, 0.5); got != 5*time.Second {
		t.Errorf("%+v.Delay(3, 0.5) = %v, want the minimum 5s", p, got)
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
		{-1, 0, 10 * time.Minute},
	}
	for _, tt := range tests {
		if got := Jittered(10*time.Minute, tt.frac, tt.r); got != tt.want {
			t.Errorf("Jittered(10m, %v, %v) = %v, want %v", tt.frac, tt.r, got, tt.want)
		}
	}
}
