package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/ipsync/ipsync/internal/backoff"
	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/drift"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/plural"
)

func stopTimer(t clock.Timer) {
	if t != nil {
		t.Stop()
	}
}

// releaseTimeout bounds giving the lease back at shutdown, when the run's
// context is already cancelled; a lease not released expires anyway.
const releaseTimeout = 10 * time.Second

// loop is Run's state; only Run's goroutine touches it.
type loop struct {
	a    *Agent
	held bool
	// standby says another agent holds the lease: syncs keep this agent's
	// views of both sides current and write nothing (Trigger.Standby).
	standby bool
	// writeUntil is when writes must have stopped unless the lease is
	// confirmed again (see leasehold.go); zero while not held.
	writeUntil time.Time
	pending    *Trigger // work waiting to run, merged
	// nextFull is when the periodic full sync is due; zero while a full
	// sync is pending or running.
	nextFull time.Time
	// nextSweep is when the periodic full sync is to be a sweep.
	nextSweep time.Time
	notBefore time.Time // backoff: pending work waits until then
	nextLease time.Time // next renewal or retry of the lease
	renewing  *renewal  // the lease request in flight
	leaseDone chan leaseResult
	failures  int
	running   *inflight
	done      chan result
}

type inflight struct {
	trig      Trigger
	start     time.Time
	cancel    context.CancelFunc
	leaseLost bool
}

type result struct {
	out Outcome
	err error
}

// Run syncs the site until ctx is cancelled: a full sync at once and then
// every Interval, a narrowed sync for each batch from triggers (batches
// queued while a sync runs are merged into one). Only while this agent
// holds the lease do they plan and write; while another agent holds it,
// they keep this one's views current for the takeover. On cancellation
// the running sync's context is cancelled too; Run waits for it, releases
// the lease and returns nil. Only a failed release is returned.
func (a *Agent) Run(ctx context.Context, triggers <-chan Trigger) error {
	t0 := a.clock.Now()
	l := &loop{a: a, nextFull: t0, nextSweep: t0, nextLease: t0, done: make(chan result, 1), leaseDone: make(chan leaseResult, 1)}
	if due := a.cfg.LastSweep.Add(a.cfg.Sweep); !a.cfg.LastSweep.IsZero() && due.After(t0) {
		l.nextSweep = due
	}
	a.log.Info(a.cfg.Role+" started", "target", a.cfg.Target, "interval", a.cfg.Interval, "sweep", a.cfg.Sweep,
		"next_sweep", l.nextSweep, "lease_ttl", a.cfg.LeaseTTL, "lease_renew", a.cfg.LeaseRenew, "dry_run", a.cfg.DryRun)
	if a.cfg.DryRun {
		a.setCondition(CondLease, true, "dry run: no lease taken, nothing written", false)
	}
	for {
		now := a.clock.Now()
		l.step(ctx, now)
		a.state.setNextSync(l.nextSync())
		var due <-chan time.Time
		var timer clock.Timer
		if w := l.wake(now); !w.IsZero() {
			timer = a.clock.NewTimer(w.Sub(now))
			due = timer.C()
		}
		select {
		case <-ctx.Done():
			stopTimer(timer)
			return l.shutdown(ctx, triggers)
		case t, ok := <-triggers:
			if !ok {
				a.log.Warn("trigger channel closed; only periodic full syncs from now on")
				triggers = nil
				break
			}
			l.pending = merge(l.pending, &t)
			if t.Input {
				l.notBefore = time.Time{}
			}
		case r := <-l.done:
			l.finish(r)
		case r := <-l.leaseDone:
			l.acquired(r, a.clock.Now())
		case <-due:
		}
		stopTimer(timer)
	}
}

// step does what is due at now: enforce the lease's deadlines, fold in the
// periodic full sync, renew the lease, start pending work.
func (l *loop) step(ctx context.Context, now time.Time) {
	l.checkLease(now)
	if !l.nextFull.IsZero() && !now.Before(l.nextFull) {
		l.pending = merge(l.pending, &Trigger{Full: true, Sweep: !now.Before(l.nextSweep)})
		l.nextFull = time.Time{}
	}
	dry := l.a.cfg.DryRun
	if !dry && l.renewing == nil && !now.Before(l.nextLease) && ctx.Err() == nil {
		l.acquire(ctx, now)
	}
	if (l.held || l.standby || dry) && l.running == nil && l.pending != nil && !now.Before(l.notBefore) {
		l.start(ctx)
	}
}

// wake is the earliest future time something is due, zero when nothing is.
func (l *loop) wake(now time.Time) time.Time {
	var w time.Time
	consider := func(t time.Time) {
		if t.After(now) && (w.IsZero() || t.Before(w)) {
			w = t
		}
	}
	if l.renewing != nil {
		consider(l.renewing.deadline)
	} else {
		consider(l.nextLease)
	}
	if l.held {
		consider(l.writeUntil)
	}
	consider(l.nextFull)
	consider(l.notBefore)
	return w
}

// nextSync is when the next sync is due as far as the schedule knows.
func (l *loop) nextSync() time.Time {
	switch {
	case l.running != nil || !l.held && !l.standby && !l.a.cfg.DryRun:
		return time.Time{}
	case l.pending != nil:
		return l.notBefore
	}
	return l.nextFull
}

func (l *loop) start(ctx context.Context) {
	trig := *l.pending
	// A dry run plans as the holder does; its syncer writes nothing.
	trig.Standby = !l.held && !l.a.cfg.DryRun
	l.pending = nil
	sctx, cancel := context.WithCancel(ctx)
	l.running = &inflight{trig: trig, start: l.a.clock.Now(), cancel: cancel}
	l.a.log.Debug("sync started", "trigger", describe(trig))
	go func() {
		out, err := l.a.syncer.Sync(sctx, &trig)
		l.done <- result{out, err}
	}()
}

// finish records a sync's result and schedules what comes next: after a
// success the next full sync an interval on; after a failure a retry of
// the same work after backoff.
func (l *loop) finish(r result) {
	a, run := l.a, l.running
	l.running = nil
	run.cancel()
	end := a.clock.Now()
	switch {
	case r.err == nil:
		l.failures, l.notBefore = 0, time.Time{}
		if run.trig.Full {
			l.nextFull = end.Add(backoff.Jittered(a.cfg.Interval, a.cfg.Jitter, a.rand()))
		}
		if run.trig.Sweep {
			l.nextSweep = end.Add(backoff.Jittered(a.cfg.Sweep, a.cfg.Jitter, a.rand()))
			a.state.setLastSweep(run.start)
		}
	case run.leaseLost:
		// Whoever holds the lease now syncs; ours waits until we get it back.
		l.pending = merge(l.pending, &run.trig)
	default:
		l.failures++
		retry := backoff.Policy{Min: a.cfg.BackoffMin, Max: a.cfg.BackoffMax, Jitter: a.cfg.Jitter}
		l.notBefore = end.Add(retry.Delay(l.failures, a.rand()))
		l.pending = merge(l.pending, &run.trig)
	}
	l.record(run, r, end)
}

// shutdown waits for the running sync and the lease request, whose
// contexts ctx's cancellation already cancelled, then gives the lease back.
// What no sync finished, the triggers still queued included, is left in
// a.stopped.
func (l *loop) shutdown(ctx context.Context, triggers <-chan Trigger) error {
	a := l.a
	if l.running != nil {
		run := l.running
		run.cancel()
		r := <-l.done
		l.running = nil
		l.record(run, r, a.clock.Now())
		if r.err != nil {
			l.pending = merge(l.pending, &run.trig)
		}
	}
	for drained := false; !drained && triggers != nil; {
		select {
		case t, ok := <-triggers:
			if !ok {
				drained = true
				break
			}
			l.pending = merge(l.pending, &t)
		default:
			drained = true
		}
	}
	a.stopped = Stopped{Pending: l.pending}
	// The request may have taken the lease before it saw the cancellation;
	// Release gives back whatever this agent holds, and the lease handle is
	// not shared with a request still running.
	mayHold := l.held
	if l.renewing != nil {
		l.renewing.cancel()
		r := <-l.leaseDone
		l.renewing = nil
		mayHold = mayHold || r.ok
	}
	defer a.log.Info(a.cfg.Role + " stopped")
	if !mayHold {
		return nil
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	l.writeUntil = time.Time{}
	l.setHeld(false)
	if err := a.lease.Release(rctx); err != nil {
		return fmt.Errorf("release lease for %s: %w", a.cfg.Site, err)
	}
	// Giving the lease back is what a clean stop does, not a failure:
	// recorded for the page and metrics, logged as information.
	a.state.setCondition(CondLease, false, "released at shutdown", false, a.clock.Now())
	a.metrics.setCondition(CondLease, false)
	a.log.Info("lease released")
	return nil
}

// record puts a finished sync into the metrics, the conditions and the
// status page.
func (l *loop) record(run *inflight, r result, end time.Time) {
	a := l.a
	rec := RunRecord{Start: run.start, End: end, Trigger: describe(run.trig), Events: run.trig.Events,
		Writes: r.out.Writes, Reads: r.out.Reads, ReadWhole: r.out.Whole}
	log := a.log.With("trigger", rec.Trigger, "duration", rec.Duration(), "writes", rec.Writes)
	if len(rec.Reads) > 0 {
		log = log.With("reads", rec.Reads)
	}
	if n := r.out.Neutron; n != nil {
		a.recordNeutron(n, log)
		rec.Writes += n.Writes
	}
	switch {
	case r.err == nil:
		rec.Result = resultOK
		for _, name := range a.state.failingFromRuns() {
			if name != CondSync && !slices.Contains(a.cfg.Sides, name) {
				a.setCondition(name, true, "reachable", true)
			}
		}
		for _, side := range a.cfg.Sides {
			a.setCondition(side, true, "reachable", true)
		}
		a.setCondition(CondSync, true, "last sync succeeded", true)
		a.metrics.lastSuccess.Set(float64(end.UnixNano()) / 1e9)
		a.metrics.softErrors.Set(0)
		if !run.trig.Standby && r.out.Writes == 0 && (r.out.Plan == nil || r.out.Plan.Writes() == 0) && r.out.Neutron.idle() {
			a.metrics.noOps.Inc()
		}
		if run.trig.Events > 0 && !run.trig.Oldest.IsZero() {
			a.metrics.lag.Observe(end.Sub(run.trig.Oldest).Seconds())
		}
		a.metrics.sync(kindOf(run.trig), rec.Duration(), r.out)
		if r.out.Ranges != nil {
			hs := a.ranges.Record(end, r.out.Ranges)
			a.metrics.setRanges(hs)
			a.state.setRanges(hs)
		}
		for side, ms := range r.out.Misses {
			for _, m := range ms {
				log.Warn("reading by changes missed an object: a sweep or the check of the followed view found it", "side", side, "object", m)
			}
		}
		if len(r.out.Whole) > 0 {
			log = log.With("read_whole", r.out.Whole)
		}
		log.Info("sync done")
	case errors.Is(r.err, context.Canceled):
		rec.Result, rec.Error = resultCanceled, r.err.Error()
		if run.leaseLost {
			rec.Error = "lease lost: " + rec.Error
		}
		log.Info("sync canceled", "err", r.err)
	case errors.Is(r.err, ErrUnreachable):
		rec.Result, rec.Error = resultUnreachable, r.err.Error()
		a.setCondition(unreachableSide(r.err), false, r.err.Error(), true)
		a.metrics.softErrors.Set(float64(l.failures))
		log.Warn("sync failed: side unreachable; retrying with backoff", "err", r.err, "failures", l.failures)
	default:
		rec.Result, rec.Error = resultError, r.err.Error()
		a.setCondition(CondSync, false, r.err.Error(), true)
		a.metrics.softErrors.Set(float64(l.failures))
		log.Error("sync failed; retrying with backoff", "err", r.err, "failures", l.failures)
	}
	if r.out.Writes > 0 {
		a.metrics.writes.Add(float64(r.out.Writes))
	}
	a.metrics.run(rec.Result, rec.Duration())
	// A narrowed sync sees only part of the site, so only a full sync that
	// got as far as a plan replaces the drift shown and counted.
	var left map[string]map[string]int
	if run.trig.Full && r.out.Plan != nil {
		plans, owners := []*plan.Plan{r.out.Plan}, []drift.Owner{r.out.Drift}
		if n := r.out.Neutron; n != nil {
			owners = append(owners, n.Drift)
			if n.Plan != nil {
				plans = append(plans, n.Plan)
			}
		}
		a.metrics.setPlan(plans...)
		a.metrics.setDrift(owners...)
		a.state.setReport(&drift.Report{GeneratedAt: end, Target: a.cfg.Target, Owners: owners})
		left = driftCounts(owners...)
	}
	a.state.addRun(rec, left)
}

// recordNeutron reports the part of a sync that wrote the static spec's
// objects to the site's Neutron: its own condition, writes and log line,
// so that a spec that does not load or a refused plan there shows without
// failing the sync of Neutron into the target.
func (a *Agent) recordNeutron(n *NeutronPart, log *slog.Logger) {
	if n.Writes > 0 {
		a.metrics.neutronWrites.Add(float64(n.Writes))
	}
	log = log.With("part", "spec to neutron", "neutron_writes", n.Writes)
	if n.Err != nil {
		a.setCondition(CondSpec, false, n.Err.Error(), false)
		log.Warn("the spec's objects of the site were not all written to its Neutron", "err", n.Err)
		return
	}
	msg := "the spec's objects of the site are in its Neutron"
	switch {
	case a.cfg.DryRun && n.Plan != nil && n.Plan.Writes() > 0:
		msg = fmt.Sprintf("dry run: %s to the site's Neutron planned, nothing written", plural.Of(n.Plan.Writes(), "change"))
	case n.Writes > 0:
		msg = fmt.Sprintf("%s of the spec written to the site's Neutron", plural.Of(n.Writes, "object"))
	}
	a.setCondition(CondSpec, true, msg, false)
	log.Info("spec to neutron done")
}

// idle says the part planned and wrote nothing; a nil part is idle.
func (n *NeutronPart) idle() bool {
	return n == nil || n.Writes == 0 && (n.Plan == nil || n.Plan.Writes() == 0)
}
