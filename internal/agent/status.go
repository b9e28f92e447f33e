package agent

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ipsync/ipsync/internal/drift"
	"github.com/ipsync/ipsync/internal/plural"
	"github.com/ipsync/ipsync/internal/rangehealth"
)

// Conditions the agent itself reports. Sides it could not read (the
// UnreachableError's Side) and names given to SetCondition are conditions
// too.
const (
	CondLease = "lease" // this agent holds the site's write lease
	CondSync  = "sync"  // the last sync did not fail for a reason other than an unreachable side
	// CondSpec is the static spec: the reconciler's is readable; an agent's
	// is loaded and its objects of the site in the site's Neutron as the
	// spec has them (written, or for a dry run planned) without a refusal.
	CondSpec = "spec"
)

// Status is what the status page and /status.json show.
type Status struct {
	// Heading names the daemon: "Agent for site", "Reconciler for".
	Heading string `json:"heading"`
	Site    string `json:"site"`
	Target  string `json:"target"`
	// Version is the running build's: which one answers matters in a
	// rollout.
	Version   string `json:"version,omitempty"`
	LeaseHeld bool   `json:"lease_held"`
	// DryRun says the agent plans and writes nothing, and takes no lease.
	DryRun      bool      `json:"dry_run"`
	Ready       bool      `json:"ready"`
	NotReady    string    `json:"not_ready,omitempty"`
	LastSuccess time.Time `json:"last_success,omitzero"`
	// NextSync is when the next sync is due, zero while one runs or the
	// agent waits for the lease.
	NextSync time.Time `json:"next_sync,omitzero"`
	// Start says how the agent started: following on from its saved
	// state, or with a sweep, and why.
	Start string `json:"start,omitempty"`
	// LastSweep is when the last sweep began, by this agent or, resumed,
	// by the one whose state it follows on from.
	LastSweep  time.Time   `json:"last_sweep,omitzero"`
	Conditions []Condition `json:"conditions"`
	// Runs are the last syncs, newest first.
	Runs []RunRecord `json:"runs"`
	// History is the syncs of the last hours, per step of time.
	History History `json:"history"`
	// Drift is from the last full sync that reached a plan; nil before one.
	Drift *drift.Report `json:"drift,omitempty"`
	// Ranges are every range the last sync of the whole site counted, with
	// their rates; the page shows those used RangeThreshold or more.
	Ranges         []rangehealth.Health `json:"ranges"`
	RangeThreshold float64              `json:"range_threshold"`
}

// State is the agent's state in a few words, for the page's title and
// badge: failing (the last sync failed, or something it depends on),
// standby (another agent holds the lease; the drift shown, if any, is from
// when this one held it), starting (no full sync reached a plan yet), how
// many objects drift and how many leaks there are, or in agreement.
func (st Status) State() string {
	failing := len(st.Runs) > 0 && (st.Runs[0].Result == resultError || st.Runs[0].Result == resultUnreachable)
	for _, c := range st.Conditions {
		// Another agent holding the lease is a standby's normal state.
		failing = failing || !c.OK && c.Name != CondLease
	}
	switch {
	case failing:
		return "failing"
	case !st.LeaseHeld && !st.DryRun:
		return "standby"
	case st.Drift == nil:
		return "starting"
	}
	// Leaks are told apart: nothing ipsync owns disagrees, but a source
	// holds what nothing accounts for, which a person must look at.
	items, leaks := st.Drift.Counts()
	switch {
	case items > 0 && leaks > 0:
		return fmt.Sprintf("%d drifting, %s", items, plural.Of(leaks, "leak"))
	case items > 0:
		return fmt.Sprintf("%d drifting", items)
	case leaks > 0:
		return plural.Of(leaks, "leak")
	}
	return "in agreement"
}

// Condition is one thing the agent depends on, and whether it holds.
type Condition struct {
	Name    string    `json:"name"`
	OK      bool      `json:"ok"`
	Message string    `json:"message"`
	Since   time.Time `json:"since"` // when OK last changed
	fromRun bool      // set by a sync's outcome, so the next success clears it
}

// RunRecord is one sync.
type RunRecord struct {
	Start   time.Time      `json:"start"`
	End     time.Time      `json:"end"`
	Trigger string         `json:"trigger"` // "full", "events N", "full (events N)", "standby: full"
	Events  int            `json:"events"`
	Result  string         `json:"result"` // ok, error, unreachable, canceled
	Writes  int            `json:"writes"` // to the target, and the spec's to the site's Neutron
	Reads   map[string]int `json:"reads,omitempty"`
	// ReadWhole names the sides read whole rather than by what changed.
	ReadWhole map[string]bool `json:"read_whole,omitempty"`
	Error     string          `json:"error,omitempty"`
}

// Duration is how long the sync ran.
func (r RunRecord) Duration() time.Duration { return r.End.Sub(r.Start) }

// state is what the loop writes and the HTTP handlers read.
type state struct {
	mu          sync.Mutex
	conds       map[string]Condition
	runs        []RunRecord // oldest first, at most history
	history     int
	hist        history // the charted history, in steps of time
	report      *drift.Report
	leaseHeld   bool
	lastSuccess time.Time
	nextSync    time.Time
	lastSweep   time.Time
	ranges      []rangehealth.Health
}

func (s *state) setRanges(hs []rangehealth.Health) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ranges = hs
}

// setCondition records a condition and reports whether its OK changed.
func (s *state) setCondition(name string, ok bool, msg string, fromRun bool, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, seen := s.conds[name]
	changed := !seen || c.OK != ok
	if changed {
		c.Since = now
	}
	c.Name, c.OK, c.Message, c.fromRun = name, ok, msg, fromRun
	s.conds[name] = c
	return changed
}

// failingFromRuns lists conditions a sync failed that are still failing.
func (s *state) failingFromRuns() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for name, c := range s.conds {
		if c.fromRun && !c.OK {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// addRun records a finished sync; left is what it left drifting, nil
// unless it was a full sync that reached a plan.
func (s *state) addRun(r RunRecord, left map[string]map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hist.add(r, left)
	s.runs = append(s.runs, r)
	if n := len(s.runs) - s.history; n > 0 {
		s.runs = slices.Delete(s.runs, 0, n)
	}
	if r.Result == resultOK {
		s.lastSuccess = r.End
	}
}

func (s *state) setReport(r *drift.Report) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.report = r
}

func (s *state) setLease(held bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.leaseHeld = held
}

func (s *state) setLastSweep(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastSweep = t
}

func (s *state) setNextSync(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextSync = t
}

// snapshot copies the state out, so handlers render without the lock.
func (s *state) snapshot(site, target string) Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Site: site, Target: target, LeaseHeld: s.leaseHeld, LastSuccess: s.lastSuccess,
		NextSync: s.nextSync, LastSweep: s.lastSweep, Drift: s.report, Conditions: []Condition{}, Runs: make([]RunRecord, 0, len(s.runs)),
		History: s.hist.snapshot(), Ranges: slices.Clone(s.ranges)}
	if st.Ranges == nil {
		st.Ranges = []rangehealth.Health{}
	}
	for _, c := range s.conds {
		st.Conditions = append(st.Conditions, c)
	}
	slices.SortFunc(st.Conditions, func(a, b Condition) int { return strings.Compare(a.Name, b.Name) })
	for i := len(s.runs) - 1; i >= 0; i-- {
		st.Runs = append(st.Runs, s.runs[i])
	}
	st.Ready, st.NotReady = readiness(st)
	return st
}

// readiness is ready once a sync succeeded and nothing the agent reads
// from is failing. A lost lease (a standby agent), a refused plan and a
// spec that does not load or whose plan for Neutron is refused are not:
// restarting would not help, and all show on the status page.
func readiness(st Status) (bool, string) {
	var why []string
	if st.LastSuccess.IsZero() {
		why = append(why, "no sync has succeeded yet")
	}
	for _, c := range st.Conditions {
		switch {
		case c.OK || c.Name == CondLease || c.Name == CondSync || c.Name == CondSpec:
		case strings.HasPrefix(c.Message, c.Name):
			why = append(why, c.Message) // an error that names its side
		default:
			why = append(why, c.Name+": "+c.Message)
		}
	}
	return len(why) == 0, strings.Join(why, "; ")
}
