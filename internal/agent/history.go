package agent

import (
	"fmt"
	"html/template"
	"maps"
	"slices"
	"time"

	"github.com/ipsync/ipsync/internal/drift"
	"github.com/ipsync/ipsync/internal/plural"
	"github.com/ipsync/ipsync/internal/svgchart"
)

// The history the status page charts is the syncs summed up per step of
// time, over a span: 72 steps at most, however often the agent syncs, so
// its memory stays small and bounded (a step is a few counters and the
// drift's count per kind and drift). An agent forgets it when it stops.
const (
	historyStep = 5 * time.Minute
	historySpan = 6 * time.Hour
)

// History is the syncs of the last hours, per step of time.
type History struct {
	StepSeconds int `json:"step_seconds"`
	// Steps are those in which a sync ended, oldest first.
	Steps []Step `json:"steps"`
}

// Step is the syncs that ended within one step of time.
type Step struct {
	Start time.Time `json:"start"`
	Syncs int       `json:"syncs"`
	// Failed counts the syncs that failed (error, unreachable); a
	// canceled one is not a failure.
	Failed          int       `json:"failed"`
	LongestSeconds  float64   `json:"longest_seconds"`
	TotalSeconds    float64   `json:"total_seconds"`
	Writes          int       `json:"writes"`
	LastResult      string    `json:"last_result"`
	LastFullSyncEnd time.Time `json:"last_full_sync_end,omitzero"`
	// Drift is the drift the step's last full sync that reached a plan
	// left, per kind and drift, leaks under "leak": what the drift table
	// and ipsync_drift_objects showed after it. For an agent that writes,
	// that is what it could not mend; for a dry run, all of it. Null
	// when no such sync ended in the step; empty when nothing drifted.
	Drift map[string]map[string]int `json:"drift"`
}

// history is the bounded series behind History; state's lock guards it.
type history struct {
	steps []Step // oldest first
}

// add counts a finished sync into its step. left is the drift it left,
// nil unless it was a full sync that reached a plan. A step's Drift map
// is replaced, never changed, so snapshots may share it.
func (h *history) add(r RunRecord, left map[string]map[string]int) {
	start := r.End.Truncate(historyStep)
	n := len(h.steps)
	if n == 0 || h.steps[n-1].Start.Before(start) {
		h.steps = append(h.steps, Step{Start: start})
		n++
	}
	// A sync that ended before the newest step (a clock stepped back)
	// counts into the newest: the series stays in order.
	s := &h.steps[n-1]
	d := r.Duration().Seconds()
	s.Syncs++
	s.TotalSeconds += d
	s.LongestSeconds = max(s.LongestSeconds, d)
	if r.Result == resultError || r.Result == resultUnreachable {
		s.Failed++
	}
	s.Writes += r.Writes
	s.LastResult = r.Result
	if left != nil {
		s.Drift, s.LastFullSyncEnd = left, r.End
	}
	cut := s.Start.Add(-historySpan + historyStep)
	i := 0
	for i < len(h.steps) && h.steps[i].Start.Before(cut) {
		i++
	}
	h.steps = slices.Delete(h.steps, 0, i)
}

func (h *history) snapshot() History {
	return History{StepSeconds: int(historyStep / time.Second), Steps: slices.Clone(h.steps)}
}

// driftCounts is what the owners leave drifting, per kind and drift, leaks under
// "leak" with their own kinds, as ipsync_drift_objects counts it.
func driftCounts(owners ...drift.Owner) map[string]map[string]int {
	out := map[string]map[string]int{}
	add := func(kind, d string, n int) {
		if out[kind] == nil {
			out[kind] = map[string]int{}
		}
		out[kind][d] += n
	}
	for _, o := range owners {
		for kind, byDrift := range o.ByKind() {
			for d, n := range byDrift {
				add(string(kind), d, n)
			}
		}
		for _, l := range o.Leaks {
			add(l.Kind, "leak", 1)
		}
	}
	return out
}

// historyView is the history of the span up to now as the page shows
// it: a sentence, and charts of the syncs' durations, the objects written
// (not for a dry run, which writes nothing) and the drift per kind. Times
// are shown in now's zone.
type historyView struct {
	Summary string
	Charts  []template.HTML
}

func newHistoryView(h History, now time.Time, dryRun bool) historyView {
	slots := int(historySpan / historyStep)
	first := now.Truncate(historyStep).Add(-historySpan + historyStep)
	slot := func(t time.Time) int { return int(t.Sub(first) / historyStep) }
	loc := now.Location()
	var ticks []svgchart.Tick
	for i := range slots {
		t := first.Add(time.Duration(i) * historyStep).In(loc)
		if t.Minute() == 0 {
			ticks = append(ticks, svgchart.Tick{Slot: i, Text: t.Format("15:04")})
		}
	}
	span := func(s Step) string {
		return s.Start.In(loc).Format("15:04") + "–" + s.Start.Add(historyStep).In(loc).Format("15:04")
	}
	durations := svgchart.Chart{Title: "Sync duration: the longest per 5 minutes (red: a sync failed)", Unit: "s", Slots: slots, XTicks: ticks}
	writes := svgchart.Chart{Title: "Objects written", Counts: true, Slots: slots, XTicks: ticks}
	drifted := svgchart.Chart{Title: "Drift left by each full sync, per kind", Counts: true, Slots: slots, XTicks: ticks}
	type sample struct {
		slot   int
		at     string
		counts map[string]int // per line
	}
	var samples []sample
	names := map[string]bool{}
	syncs, failed, written := 0, 0, 0
	for _, s := range h.Steps {
		i := slot(s.Start)
		if i < 0 || i >= slots {
			continue
		}
		syncs, failed, written = syncs+s.Syncs, failed+s.Failed, written+s.Writes
		tip := fmt.Sprintf("%s: %s, the longest %.1fs", span(s), plural.Of(s.Syncs, "sync"), s.LongestSeconds)
		if s.Failed > 0 {
			tip += fmt.Sprintf(", %d failed", s.Failed)
		}
		durations.Bars = append(durations.Bars, svgchart.Bar{Slot: i, Value: s.LongestSeconds, Marked: s.Failed > 0, Tip: tip})
		if s.Writes > 0 {
			writes.Bars = append(writes.Bars, svgchart.Bar{Slot: i, Value: float64(s.Writes), Tip: fmt.Sprintf("%s: %s written", span(s), plural.Of(s.Writes, "object"))})
		}
		if s.Drift == nil {
			continue
		}
		// Leaks are the sources' (segment, reference): lines of their own.
		c := map[string]int{}
		for kind, byDrift := range s.Drift {
			for d, n := range byDrift {
				name := kind
				if d == "leak" {
					name += " leaks"
				}
				c[name] += n
				names[name] = true
			}
		}
		samples = append(samples, sample{i, s.LastFullSyncEnd.In(loc).Format("15:04"), c})
	}
	// Every line has a point at every full sync, zero where its kind did
	// not drift; with nothing drifting at all, one line says so.
	lines := slices.Sorted(maps.Keys(names))
	if len(lines) == 0 && len(samples) > 0 {
		lines = []string{"all kinds"}
	}
	for _, name := range lines {
		l := svgchart.Line{Name: name}
		for _, s := range samples {
			v := s.counts[name]
			l.Points = append(l.Points, svgchart.Point{Slot: s.slot, Value: float64(v), Tip: fmt.Sprintf("%s: %s %d", s.at, name, v)})
		}
		drifted.Lines = append(drifted.Lines, l)
	}
	if dryRun {
		return historyView{
			Summary: fmt.Sprintf("%s, %d failed", plural.Of(syncs, "sync"), failed),
			Charts:  []template.HTML{durations.SVG(), drifted.SVG()},
		}
	}
	return historyView{
		Summary: fmt.Sprintf("%s, %d failed, %s written", plural.Of(syncs, "sync"), failed, plural.Of(written, "object")),
		Charts:  []template.HTML{durations.SVG(), writes.SVG(), drifted.SVG()},
	}
}
