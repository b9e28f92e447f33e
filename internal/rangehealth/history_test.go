package rangehealth

import (
	"math"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// TestForecast feeds one range's used counts, a sync apart, and checks the
// rate and the time to full the last one gives.
func TestForecast(t *testing.T) {
	for _, tc := range []struct {
		name      string
		size      int
		used      []int // one per sync
		every     time.Duration
		rated     bool
		perDay    float64
		filling   bool
		fullInHrs float64
	}{
		{name: "one sync", size: 100, used: []int{50}, every: time.Hour},
		{name: "under the minimum span", size: 100, used: []int{50, 51, 52}, every: 20 * time.Minute},
		{name: "two ids an hour", size: 100, used: []int{50, 52, 54}, every: time.Hour, rated: true, perDay: 48, filling: true, fullInHrs: 23},
		{name: "flat", size: 100, used: []int{90, 90, 90}, every: time.Hour, rated: true},
		{name: "emptying", size: 100, used: []int{90, 80, 70}, every: time.Hour, rated: true, perDay: -240},
		{name: "full and flat", size: 10, used: []int{10, 10}, every: time.Hour, rated: true, filling: true},
		{name: "noisy but rising", size: 1000, used: []int{100, 99, 102, 101, 104}, every: time.Hour, rated: true, perDay: 24, filling: true, fullInHrs: 896},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := NewHistory()
			var got []Health
			for i, n := range tc.used {
				got = h.Record(t0.Add(time.Duration(i)*tc.every), []Usage{{Kind: "vlan", Range: "r", Size: tc.size, Used: n}})
			}
			g := got[0]
			if g.Rated != tc.rated || math.Abs(g.PerDay-tc.perDay) > 1e-6 || g.Filling != tc.filling {
				t.Errorf("rated, per day, filling = %v, %g, %v; want %v, %g, %v", g.Rated, g.PerDay, g.Filling, tc.rated, tc.perDay, tc.filling)
			}
			if want := tc.fullInHrs * 3600; math.Abs(g.FullInSeconds-want) > 1e-3 {
				t.Errorf("full in %gs, want %gs", g.FullInSeconds, want)
			}
			if last := tc.used[len(tc.used)-1]; g.Used != last || g.Free != tc.size-last || g.UsedRatio != float64(last)/float64(tc.size) {
				t.Errorf("used %d, free %d, ratio %g; want %d of %d", g.Used, g.Free, g.UsedRatio, last, tc.size)
			}
		})
	}
}

// TestHistoryBounded: a week of syncs every minute keeps one sample per
// step over the span, the newest included, and ranges that went are
// forgotten.
func TestHistoryBounded(t *testing.T) {
	h := NewHistory()
	end := t0.Add(2 * DefaultSpan)
	for at := t0; !at.After(end); at = at.Add(time.Minute) {
		h.Record(at, []Usage{{Kind: "vxlan", Range: "vni", Size: 1000, Used: 1}, {Kind: "vlan", Range: "gone", Size: 10, Used: 1}})
	}
	h.Record(end.Add(time.Minute), []Usage{{Kind: "vxlan", Range: "vni", Size: 1000, Used: 2}})
	saved := h.Saved()
	if len(saved) != 1 || saved[0].Range != "vni" {
		t.Fatalf("saved %v, want the range still there alone", saved)
	}
	s := saved[0].Samples
	if max := int(DefaultSpan/DefaultStep) + 2; len(s) > max {
		t.Errorf("%d samples kept, want at most %d", len(s), max)
	}
	if got, want := s[len(s)-1], (Sample{At: end.Add(time.Minute), Used: 2}); got != want {
		t.Errorf("newest sample %v, want %v", got, want)
	}
	if span := s[len(s)-1].At.Sub(s[0].At); span > DefaultSpan {
		t.Errorf("samples span %v, more than %v", span, DefaultSpan)
	}
}

// TestRestore: a history saved and restored forecasts as the one that
// kept running.
func TestRestore(t *testing.T) {
	a := NewHistory()
	for i := range 5 {
		a.Record(t0.Add(time.Duration(i)*time.Hour), []Usage{{Kind: KindVLANGroup, Range: "a11-12-network", Size: 100, Used: 10 + i}})
	}
	b := NewHistory()
	b.Restore(a.Saved())
	next := []Usage{{Kind: KindVLANGroup, Range: "a11-12-network", Size: 100, Used: 15}}
	want := a.Record(t0.Add(5*time.Hour), next)
	got := b.Record(t0.Add(5*time.Hour), next)
	if got[0] != want[0] {
		t.Errorf("restored history gives %+v, want %+v", got[0], want[0])
	}
}

func TestAbove(t *testing.T) {
	hs := []Health{
		{Usage: Usage{Range: "empty"}},
		{Usage: Usage{Range: "half", Size: 10, Used: 5}, UsedRatio: 0.5},
		{Usage: Usage{Range: "at", Size: 10, Used: 8}, UsedRatio: 0.8},
		{Usage: Usage{Range: "full", Size: 10, Used: 10}, UsedRatio: 1},
	}
	for _, tc := range []struct {
		threshold float64
		want      []string
	}{{0.8, []string{"at", "full"}}, {0.9, []string{"full"}}, {0.1, []string{"half", "at", "full"}}} {
		var got []string
		for _, h := range Above(hs, tc.threshold) {
			got = append(got, h.Range)
		}
		if len(got) != len(tc.want) || (len(got) > 0 && got[0] != tc.want[0]) {
			t.Errorf("Above(%g) = %v, want %v", tc.threshold, got, tc.want)
		}
	}
}
