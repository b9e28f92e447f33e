package rangehealth

import "time"

// Health is a range's usage now and how fast it filled over the history
// kept.
type Health struct {
	Usage
	UsedRatio float64 `json:"used_ratio"`
	Free      int     `json:"free"`
	// PerDay is the ids taken per day: the slope of the least-squares line
	// through the history's samples (negative when the range empties). Zero
	// and Rated false while the history spans less than the minimum.
	PerDay float64 `json:"per_day"`
	Rated  bool    `json:"rated"`
	// HistorySeconds is the span of history the rate is from.
	HistorySeconds float64 `json:"history_seconds"`
	// FullIn is when the range is full at PerDay: zero when it is full
	// now; set (Filling) only while it is filling.
	Filling       bool    `json:"filling"`
	FullInSeconds float64 `json:"full_in_seconds,omitempty"`
}

// FullIn is FullInSeconds as a duration.
func (h Health) FullIn() time.Duration {
	return time.Duration(h.FullInSeconds * float64(time.Second))
}

// health is u's health with history s, s's newest sample being u's.
func (h *History) health(u Usage, s []Sample) Health {
	out := Health{Usage: u, UsedRatio: u.Ratio(), Free: u.Free()}
	if len(s) < 2 {
		return out
	}
	span := s[len(s)-1].At.Sub(s[0].At)
	out.HistorySeconds = span.Seconds()
	if span < h.minSpan || span <= 0 {
		return out
	}
	perSecond := slope(s)
	out.Rated, out.PerDay = true, perSecond*86400
	switch {
	case out.Free == 0:
		out.Filling = true
	case perSecond > 0:
		out.Filling, out.FullInSeconds = true, float64(out.Free)/perSecond
	}
	return out
}

// slope is the least-squares slope of used over time, ids per second; the
// times are taken from the first sample's so that the sums stay small.
func slope(s []Sample) float64 {
	t0 := s[0].At
	n := float64(len(s))
	var sx, sy, sxx, sxy float64
	for _, p := range s {
		x, y := p.At.Sub(t0).Seconds(), float64(p.Used)
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}

// Now is the health of us without a history: used and free, no rate.
func Now(us []Usage) []Health {
	out := make([]Health, len(us))
	for i, u := range us {
		out[i] = Health{Usage: u, UsedRatio: u.Ratio(), Free: u.Free()}
	}
	return out
}

// Above are the ranges of hs used at threshold or more, in hs's order.
func Above(hs []Health, threshold float64) []Health {
	var out []Health
	for _, h := range hs {
		if h.Size > 0 && h.UsedRatio >= threshold {
			out = append(out, h)
		}
	}
	return out
}
