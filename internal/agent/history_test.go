package agent

import (
	"encoding/xml"
	"errors"
	"io"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/drift"
	"github.com/ipsync/ipsync/internal/resource"
)

var t0 = time.Date(2025, 3, 4, 5, 0, 0, 0, time.UTC)

// ended is a finished sync of d ending at end.
func ended(end time.Time, d time.Duration, result string, writes int) RunRecord {
	return RunRecord{Start: end.Add(-d), End: end, Result: result, Writes: writes}
}

func TestHistorySteps(t *testing.T) {
	vlanMissing := map[string]map[string]int{"vlan": {"missing": 2}}
	agree := map[string]map[string]int{}
	tests := []struct {
		name  string
		syncs []RunRecord
		drift []map[string]map[string]int // per sync; nil: not a full sync with a plan
		want  []Step
	}{
		{
			name:  "one step sums its syncs",
			syncs: []RunRecord{ended(t0.Add(time.Minute), 2*time.Second, resultOK, 3), ended(t0.Add(2*time.Minute), 5*time.Second, resultUnreachable, 0), ended(t0.Add(4*time.Minute), time.Second, resultCanceled, 1)},
			drift: []map[string]map[string]int{vlanMissing, nil, nil},
			want: []Step{{Start: t0, Syncs: 3, Failed: 1, LongestSeconds: 5, TotalSeconds: 8, Writes: 4, LastResult: resultCanceled,
				LastFullSyncEnd: t0.Add(time.Minute), Drift: vlanMissing}},
		},
		{
			name:  "steps of 5 minutes, the last full sync's drift",
			syncs: []RunRecord{ended(t0.Add(4*time.Minute), time.Second, resultOK, 0), ended(t0.Add(5*time.Minute), time.Second, resultError, 0), ended(t0.Add(9*time.Minute), time.Second, resultOK, 0), ended(t0.Add(31*time.Minute), time.Second, resultOK, 0)},
			drift: []map[string]map[string]int{vlanMissing, nil, agree, nil},
			want: []Step{
				{Start: t0, Syncs: 1, LongestSeconds: 1, TotalSeconds: 1, LastResult: resultOK, LastFullSyncEnd: t0.Add(4 * time.Minute), Drift: vlanMissing},
				{Start: t0.Add(5 * time.Minute), Syncs: 2, Failed: 1, LongestSeconds: 1, TotalSeconds: 2, LastResult: resultOK, LastFullSyncEnd: t0.Add(9 * time.Minute), Drift: agree},
				{Start: t0.Add(30 * time.Minute), Syncs: 1, LongestSeconds: 1, TotalSeconds: 1, LastResult: resultOK},
			},
		},
		{
			name:  "a sync ending before the newest step counts into it",
			syncs: []RunRecord{ended(t0.Add(12*time.Minute), time.Second, resultOK, 1), ended(t0.Add(time.Minute), time.Second, resultOK, 1)},
			drift: []map[string]map[string]int{nil, nil},
			want:  []Step{{Start: t0.Add(10 * time.Minute), Syncs: 2, LongestSeconds: 1, TotalSeconds: 2, Writes: 2, LastResult: resultOK}},
		},
		{
			name:  "steps older than the span are dropped",
			syncs: []RunRecord{ended(t0, time.Second, resultOK, 0), ended(t0.Add(historyStep), time.Second, resultOK, 0), ended(t0.Add(historySpan), time.Second, resultOK, 0)},
			drift: []map[string]map[string]int{nil, nil, nil},
			want: []Step{
				{Start: t0.Add(historyStep), Syncs: 1, LongestSeconds: 1, TotalSeconds: 1, LastResult: resultOK},
				{Start: t0.Add(historySpan), Syncs: 1, LongestSeconds: 1, TotalSeconds: 1, LastResult: resultOK},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h history
			for i, r := range tt.syncs {
				h.add(r, tt.drift[i])
			}
			got := h.snapshot()
			if got.StepSeconds != 300 {
				t.Errorf("StepSeconds = %d, want 300", got.StepSeconds)
			}
			if len(got.Steps) != len(tt.want) {
				t.Fatalf("steps = %+v, want %+v", got.Steps, tt.want)
			}
			for i, s := range got.Steps {
				w := tt.want[i]
				if !s.Start.Equal(w.Start) || s.Syncs != w.Syncs || s.Failed != w.Failed || s.LongestSeconds != w.LongestSeconds ||
					s.TotalSeconds != w.TotalSeconds || s.Writes != w.Writes || s.LastResult != w.LastResult || !s.LastFullSyncEnd.Equal(w.LastFullSyncEnd) ||
					(s.Drift == nil) != (w.Drift == nil) || !maps.EqualFunc(s.Drift, w.Drift, maps.Equal) {
					t.Errorf("step %d = %+v, want %+v", i, s, w)
				}
			}
		})
	}
}

// TestHistoryBound: an agent syncing every few seconds for a day keeps
// no more steps than the span holds, the newest last.
func TestHistoryBound(t *testing.T) {
	var h history
	end := t0
	for range 24 * 60 * 60 / 7 {
		end = end.Add(7 * time.Second)
		h.add(ended(end, time.Second, resultOK, 1), map[string]map[string]int{"vlan": {"missing": 1}})
	}
	max := int(historySpan / historyStep)
	if n := len(h.steps); n != max {
		t.Errorf("%d steps after a day, want %d", n, max)
	}
	if cap(h.steps) > 2*max {
		t.Errorf("the steps' array grew to %d, want it to stay near %d", cap(h.steps), max)
	}
	for i := 1; i < len(h.steps); i++ {
		if !h.steps[i].Start.After(h.steps[i-1].Start) {
			t.Fatalf("steps out of order at %d: %v after %v", i, h.steps[i].Start, h.steps[i-1].Start)
		}
	}
	if last := h.steps[len(h.steps)-1].Start; !last.Equal(end.Truncate(historyStep)) {
		t.Errorf("newest step %v, want %v", last, end.Truncate(historyStep))
	}
}

func TestDriftCounts(t *testing.T) {
	o := drift.Owner{Items: []drift.Item{
		{Kind: resource.KindVLAN, Drift: "missing"}, {Kind: resource.KindVLAN, Drift: "missing"},
		{Kind: resource.KindVLAN, Drift: "extra"}, {Kind: resource.KindPrefix, Drift: "different"},
	}, Leaks: []drift.Leak{{Kind: "segment"}, {Kind: "segment"}}}
	want := map[string]map[string]int{"vlan": {"missing": 2, "extra": 1}, "prefix": {"different": 1}, "segment": {"leak": 2}}
	if got := driftCounts(o); !maps.EqualFunc(got, want, maps.Equal) {
		t.Errorf("driftCounts = %v, want %v", got, want)
	}
	if got := driftCounts(drift.Owner{Items: []drift.Item{}}); got == nil || len(got) != 0 {
		t.Errorf("driftCounts of no drift = %v, want empty, not nil: a full sync found nothing", got)
	}
}

// TestHistoryView: the charts are well-formed SVG, place each step at
// its time, mark failures and draw a line per drifting kind.
func TestHistoryView(t *testing.T) {
	now := t0.Add(6 * time.Hour)
	var h history
	h.add(ended(now.Add(-7*time.Hour), time.Second, resultOK, 9), nil) // out of the window
	h.add(ended(now.Add(-2*time.Hour), 3*time.Second, resultOK, 2), map[string]map[string]int{"vlan": {"missing": 2}, "segment": {"leak": 1}})
	h.add(ended(now.Add(-time.Hour), 4*time.Second, resultError, 0), nil)
	h.add(ended(now.Add(-10*time.Minute), time.Second, resultOK, 1), map[string]map[string]int{})
	v := newHistoryView(h.snapshot(), now, false)
	if want := "3 syncs, 1 failed, 3 objects written"; v.Summary != want {
		t.Errorf("summary %q, want %q", v.Summary, want)
	}
	if len(v.Charts) != 3 {
		t.Fatalf("%d charts, want 3", len(v.Charts))
	}
	texts := func(svg string) string {
		d := xml.NewDecoder(strings.NewReader(svg))
		var b strings.Builder
		for {
			tok, err := d.Token()
			if errors.Is(err, io.EOF) {
				return b.String()
			}
			if err != nil {
				t.Fatalf("chart is not well-formed: %v\n%s", err, svg)
			}
			if cd, ok := tok.(xml.CharData); ok {
				b.Write(cd)
				b.WriteString("|")
			}
		}
	}
	durations, writes, drifted := string(v.Charts[0]), texts(string(v.Charts[1])), texts(string(v.Charts[2]))
	for _, want := range []string{"09:00–09:05: 1 sync, the longest 3.0s", "10:00–10:05: 1 sync, the longest 4.0s, 1 failed", "#c0392b", "06:00", "10:00"} {
		if !strings.Contains(texts(durations)+durations, want) {
			t.Errorf("durations chart lacks %q", want)
		}
	}
	if strings.Contains(writes, "9 objects") || !strings.Contains(writes, "2 objects written") {
		t.Errorf("writes chart: %s", writes)
	}
	for _, want := range []string{"vlan|", "segment leaks|", "09:00: vlan 2", "10:50: vlan 0", "10:50: segment leaks 0"} {
		if !strings.Contains(drifted, want) {
			t.Errorf("drift chart lacks %q: %s", want, drifted)
		}
	}

	empty := newHistoryView(History{}, now, false)
	if empty.Summary != "0 syncs, 0 failed, 0 objects written" || len(empty.Charts) != 3 {
		t.Errorf("empty history: %+v", empty)
	}
	if dry := newHistoryView(h.snapshot(), now, true); dry.Summary != "3 syncs, 1 failed" || len(dry.Charts) != 2 || strings.Contains(string(dry.Charts[1]), "written") {
		t.Errorf("a dry run's history charts writes: %q, %d charts", dry.Summary, len(dry.Charts))
	}
}

func TestState(t *testing.T) {
	drifting := &drift.Report{Owners: []drift.Owner{{Items: []drift.Item{{Kind: "vlan"}}, Leaks: []drift.Leak{{Kind: "segment"}}}}}
	agreeing := &drift.Report{Owners: []drift.Owner{{Items: []drift.Item{}}}}
	leaking := &drift.Report{Owners: []drift.Owner{{Items: []drift.Item{}, Leaks: []drift.Leak{{Kind: "segment"}}}, {Leaks: []drift.Leak{{Kind: "vlan"}}}}}
	differing := &drift.Report{Owners: []drift.Owner{{Items: []drift.Item{{Kind: "vlan"}, {Kind: "prefix"}}}}}
	ok := []RunRecord{{Result: resultOK}}
	held := func(st Status) Status { st.LeaseHeld = true; return st }
	tests := []struct {
		name string
		st   Status
		want string
	}{
		{"before any sync", held(Status{}), "starting"},
		{"in agreement", held(Status{Runs: ok, Drift: agreeing}), "in agreement"},
		{"drifting and leaking", held(Status{Runs: ok, Drift: drifting}), "1 drifting, 1 leak"},
		{"drifting", held(Status{Runs: ok, Drift: differing}), "2 drifting"},
		{"leaks only", held(Status{Runs: ok, Drift: leaking}), "2 leaks"},
		{"dry run", Status{DryRun: true, Runs: ok, Drift: differing}, "2 drifting"},
		{"last sync failed", held(Status{Runs: []RunRecord{{Result: resultUnreachable}, {Result: resultOK}}, Drift: agreeing}), "failing"},
		{"a condition fails", held(Status{Runs: ok, Drift: agreeing, Conditions: []Condition{{Name: "rabbitmq"}}}), "failing"},
		{"standby", Status{Runs: ok, Drift: drifting, Conditions: []Condition{{Name: CondLease}}}, "standby"},
		{"standby, unreachable", Status{Runs: ok, Conditions: []Condition{{Name: CondLease}, {Name: "neutron"}}}, "failing"},
		{"canceled at shutdown", held(Status{Runs: []RunRecord{{Result: resultCanceled}}, Drift: drifting}), "1 drifting, 1 leak"},
	}
	for _, tt := range tests {
		if got := tt.st.State(); got != tt.want {
			t.Errorf("%s: State() = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestRefreshEvery(t *testing.T) {
	tests := []struct {
		next time.Time
		want time.Duration
	}{
		{time.Time{}, 30 * time.Second},
		{t0.Add(10 * time.Minute), 30 * time.Second},
		{t0.Add(12 * time.Second), 17 * time.Second},
		{t0, 5 * time.Second},
		{t0.Add(-time.Minute), 5 * time.Second},
	}
	for _, tt := range tests {
		if got := refreshEvery(tt.next, t0); got != tt.want {
			t.Errorf("refreshEvery(next in %v) = %v, want %v", tt.next.Sub(t0), got, tt.want)
		}
	}
}
