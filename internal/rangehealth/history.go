package rangehealth

import (
	"cmp"
	"maps"
	"slices"
	"sync"
	"time"
)

// The history behind the rates: per range, the used count of the syncs
// that read it, thinned to one sample per step, over a span. A week at a
// quarter of an hour is 673 samples a range (some 16 kB in memory, 30 kB
// in a state file), whatever the sync interval; the newest sample is
// always kept, so the rate follows the last sync.
const (
	DefaultStep = 15 * time.Minute
	DefaultSpan = 7 * 24 * time.Hour
	// DefaultMinSpan is the history a forecast needs: a burst of networks
	// made within minutes is not a rate to extrapolate over weeks.
	DefaultMinSpan = time.Hour
)

// Sample is a range's used count at one time.
type Sample struct {
	At   time.Time `json:"at"`
	Used int       `json:"used"`
}

// Series is one range's samples, oldest first, as a state file keeps them.
type Series struct {
	Kind    string   `json:"kind"`
	Range   string   `json:"range"`
	Samples []Sample `json:"samples"`
}

// History keeps the used counts of a site's ranges over time, bounded, and
// says how fast each fills. It is safe for concurrent use.
type History struct {
	step, span, minSpan time.Duration

	mu     sync.Mutex
	series map[key][]Sample
}

// HistoryOption changes how NewHistory builds a History.
type HistoryOption func(*History)

// WithSpans sets the thinning step, the span kept and the span a forecast
// needs (DefaultStep, DefaultSpan, DefaultMinSpan).
func WithSpans(step, span, minSpan time.Duration) HistoryOption {
	return func(h *History) { h.step, h.span, h.minSpan = step, span, minSpan }
}

// NewHistory returns an empty history.
func NewHistory(opts ...HistoryOption) *History {
	h := &History{step: DefaultStep, span: DefaultSpan, minSpan: DefaultMinSpan, series: map[key][]Sample{}}
	for _, o := range opts {
		o(h)
	}
	return h
}

// Record adds the usage of every range a sync at at counted, and returns
// their health, in us's order sorted (Sort). A range missing from us is
// gone (deleted, renamed) and its history with it.
func (h *History) Record(at time.Time, us []Usage) []Health {
	us = slices.Clone(us)
	Sort(us)
	h.mu.Lock()
	defer h.mu.Unlock()
	seen := make(map[key]bool, len(us))
	out := make([]Health, len(us))
	for i, u := range us {
		k := u.key()
		seen[k] = true
		s := h.add(h.series[k], Sample{At: at, Used: u.Used})
		h.series[k] = s
		out[i] = h.health(u, s)
	}
	maps.DeleteFunc(h.series, func(k key, _ []Sample) bool { return !seen[k] })
	return out
}

// add appends x to s and keeps s bounded: samples at least a step apart
// but the newest, none older than the span before x.
func (h *History) add(s []Sample, x Sample) []Sample {
	// A clock stepped back: what came "after" x cannot be ordered with it.
	s = slices.DeleteFunc(s, func(p Sample) bool { return !p.At.Before(x.At) })
	s = append(s, x)
	if n := len(s); n >= 3 && s[n-2].At.Sub(s[n-3].At) < h.step {
		s = slices.Delete(s, n-2, n-1)
	}
	cut := x.At.Add(-h.span)
	i := 0
	for i < len(s)-1 && s[i].At.Before(cut) {
		i++
	}
	return slices.Delete(s, 0, i)
}

// Saved is the history to keep across a restart, sorted by range.
func (h *History) Saved() []Series {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Series, 0, len(h.series))
	for k, s := range h.series {
		out = append(out, Series{Kind: k.kind, Range: k.name, Samples: slices.Clone(s)})
	}
	slices.SortFunc(out, func(a, b Series) int {
		return compareKeys(key{a.Kind, a.Range}, key{b.Kind, b.Range})
	})
	return out
}

// Restore puts back a saved history, before the first Record: what it
// holds beyond the bounds goes at the next Record of its range.
func (h *History) Restore(ss []Series) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, s := range ss {
		samples := slices.Clone(s.Samples)
		slices.SortFunc(samples, func(a, b Sample) int { return a.At.Compare(b.At) })
		h.series[key{s.Kind, s.Range}] = samples
	}
}

func compareKeys(a, b key) int {
	return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.name, b.name))
}
