package drift

import (
	"fmt"
	"math"
	"time"

	"github.com/ipsync/ipsync/internal/rangehealth"
)

// Ranges are the ranges filling up: those of the ranges counted that are
// used at Threshold or more. Not drift, and no count of it: a full range
// is the operators' to grow, and nothing a sync mends.
type Ranges struct {
	Threshold float64 `json:"threshold"`
	// Counted is how many ranges were counted, Above those shown.
	Counted int     `json:"counted"`
	Above   []Range `json:"above"`
}

// Range is one site's range and its health; the rate is known only where
// an agent kept a history of it.
type Range struct {
	Site string `json:"site"`
	rangehealth.Health
}

// RangesOf is the ranges of site in hs used at threshold or more.
func RangesOf(site string, hs []rangehealth.Health, threshold float64) *Ranges {
	r := &Ranges{Threshold: threshold, Counted: len(hs), Above: []Range{}}
	for _, h := range rangehealth.Above(hs, threshold) {
		r.Above = append(r.Above, Range{Site: site, Health: h})
	}
	return r
}

// Percent is the used ratio as a page shows it, rounded down so that a
// range shown as 100% is full.
func (r Range) Percent() string {
	return fmt.Sprintf("%d%%", int(math.Floor(r.UsedRatio*100)))
}

// Rate is how fast the range fills, in words.
func (r Range) Rate() string {
	if !r.Rated {
		return "not known yet"
	}
	return fmt.Sprintf("%+.1f a day", r.PerDay)
}

// Forecast says when the range is full at that rate.
func (r Range) Forecast() string {
	switch {
	case r.Free == 0:
		return "full"
	case !r.Filling:
		return "-"
	}
	d := r.FullIn()
	switch {
	case d < time.Hour:
		return "within the hour"
	case d < 48*time.Hour:
		return fmt.Sprintf("in %d hours", int(d.Hours()))
	}
	return fmt.Sprintf("in %d days", int(d.Hours()/24))
}
