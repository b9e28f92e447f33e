// Package agent runs the per-site daemon: a full reconcile at start and
// every interval, narrowed syncs when Neutron notifications arrive, one
// writer per owner through a lease, backoff while a side is unreachable,
// and the HTTP endpoints an operator and Prometheus look at.
package agent

import (
	"html/template"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/rangehealth"
)

// Config is the agent's schedule. Zero fields take the defaults noted.
type Config struct {
	// Site is what the agent syncs: a site's name, or for the static
	// reconciler its owner (static:<spec>); it labels logs and metrics.
	Site string
	// Heading is what the status page calls this daemon before the site
	// (default "Agent for site").
	Heading string
	// Sides name the servers each sync reads, as conditions name them
	// ("neutron", "nautobot"): a successful sync says each is reachable,
	// so the status page lists them healthy too, not only once they fail.
	Sides []string
	// Version is the build's, for the status page ("v1.2.3 (commit ...)").
	Version string
	// Role names this daemon in its log lines ("reconciler started");
	// default "agent".
	Role string
	// Target names what the site is synced to, on the status page
	// (default "nautobot").
	Target string
	// Interval is the time between periodic syncs of the whole site (10m),
	// spread by ±Jitter (0.1; negative turns jitter off). Such a sync reads
	// what changed since the last one where the syncer can tell.
	Interval time.Duration
	Jitter   float64
	// Sweep is the time between sweeps (24h): syncs that read both sides
	// whole, whatever the syncer could tell. The first sync is one, unless
	// LastSweep (a resumed agent's) says the last was less than Sweep ago.
	Sweep     time.Duration
	LastSweep time.Time
	// Start says how the agent started (resumed from a saved state, or why
	// not), for the status page.
	Start string
	// LeaseTTL is how long the lease lasts without renewal (2m); it must
	// match the lease's own expiry. LeaseRenew is how often the lease is
	// renewed while held and retried while another agent holds it (30s,
	// at most LeaseTTL/3), and how long one request for it may take.
	// Writes stop LeaseTTL-LeaseRenew after the last confirmation.
	LeaseTTL, LeaseRenew time.Duration
	// BackoffMin and BackoffMax bound the retry delay after a failed sync
	// (5s, 5m); it doubles per consecutive failure.
	BackoffMin, BackoffMax time.Duration
	// History is how many runs the status page keeps (20).
	History int
	// DryRun is an agent that plans and reports drift and writes nothing:
	// it takes no lease either, so an agent that writes, started beside
	// it, is not kept waiting, and the target sees only reads.
	DryRun bool
	// RangeThreshold is the used ratio from which the status page shows a
	// range as filling up (rangehealth.DefaultThreshold).
	RangeThreshold float64
}

func (c Config) withDefaults() Config {
	if c.Target == "" {
		c.Target = "nautobot"
	}
	if c.Role == "" {
		c.Role = "agent"
	}
	if c.Heading == "" {
		c.Heading = "Agent for site"
	}
	if c.Interval <= 0 {
		c.Interval = 10 * time.Minute
	}
	if c.Sweep <= 0 {
		c.Sweep = 24 * time.Hour
	}
	switch {
	case c.Jitter == 0:
		c.Jitter = 0.1
	case c.Jitter < 0:
		c.Jitter = 0
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = 2 * time.Minute
	}
	if c.LeaseRenew <= 0 {
		c.LeaseRenew = 30 * time.Second
	}
	// Config validation refuses a longer interval; here it is only kept
	// from breaking the lease rule.
	c.LeaseRenew = min(c.LeaseRenew, c.LeaseTTL/minRenewalsPerTTL)
	if c.BackoffMin <= 0 {
		c.BackoffMin = 5 * time.Second
	}
	if c.BackoffMax <= 0 {
		c.BackoffMax = 5 * time.Minute
	}
	c.BackoffMax = max(c.BackoffMax, c.BackoffMin)
	if c.History <= 0 {
		c.History = 20
	}
	if c.RangeThreshold <= 0 {
		c.RangeThreshold = rangehealth.DefaultThreshold
	}
	return c
}

// Agent is one site's daemon. Run it once; Handler and SetCondition may be
// used from any goroutine.
type Agent struct {
	cfg     Config
	syncer  Syncer
	lease   Lease
	log     *slog.Logger
	reg     Registry
	metrics *metrics
	clock   clock.Clock
	rand    func() float64
	page    *template.Template
	state   *state
	// ranges is the history of the ranges' use the rates come from; the
	// caller may keep it across restarts (WithRangeHistory).
	ranges *rangehealth.History
	// stopped is what Run left undone, set when it returns.
	stopped Stopped
}

// Stopped is what a stopped agent left: the work no sync finished (nil
// if none), holder's or standby's. Work named by notifications that were
// taken from the queue is lost unless the caller keeps it for the next
// start.
type Stopped struct {
	Pending *Trigger
}

// Stopped is what Run left when it returned; call it after Run returned.
func (a *Agent) Stopped() Stopped { return a.stopped }

// Option changes how New builds an Agent.
type Option func(*Agent)

// WithClock replaces the real clock, for tests.
func WithClock(c clock.Clock) Option { return func(a *Agent) { a.clock = c } }

// WithRangeHistory records the ranges' use in h, which the caller may have
// restored from a saved state and saves with the next.
func WithRangeHistory(h *rangehealth.History) Option { return func(a *Agent) { a.ranges = h } }

// New builds the agent for cfg.Site. Its metrics are registered on reg,
// which /metrics serves; one agent per registry.
func New(cfg Config, s Syncer, l Lease, logger *slog.Logger, reg Registry, opts ...Option) *Agent {
	cfg = cfg.withDefaults()
	a := &Agent{
		cfg:     cfg,
		syncer:  s,
		lease:   l,
		log:     logger.With("site", cfg.Site),
		reg:     reg,
		metrics: newMetrics(reg, cfg.Site),
		clock:   clock.Real(),
		rand:    rand.Float64,
		page:    template.Must(template.New("status").Funcs(pageFuncs()).Parse(statusHTML)),
		state:   &state{conds: map[string]Condition{}, history: cfg.History, lastSweep: cfg.LastSweep},
		ranges:  rangehealth.NewHistory(),
	}
	for _, o := range opts {
		o(a)
	}
	return a
}

// SetCondition reports the state of something the agent depends on but
// does not watch itself, such as the "rabbitmq" connection of the event
// consumer. A failing condition makes /readyz fail.
func (a *Agent) SetCondition(name string, ok bool, message string) {
	a.setCondition(name, ok, message, false)
}

func (a *Agent) setCondition(name string, ok bool, message string, fromRun bool) {
	if a.state.setCondition(name, ok, message, fromRun, a.clock.Now()) {
		if ok {
			a.log.Info("condition ok", "condition", name, "message", message)
		} else {
			a.log.Warn("condition failing", "condition", name, "message", message)
		}
	}
	a.metrics.setCondition(name, ok)
}

// Status is the agent's state as the status page shows it.
func (a *Agent) Status() Status {
	st := a.state.snapshot(a.cfg.Site, a.cfg.Target)
	st.Start, st.DryRun, st.Heading, st.RangeThreshold = a.cfg.Start, a.cfg.DryRun, a.cfg.Heading, a.cfg.RangeThreshold
	st.Version = a.cfg.Version
	return st
}
