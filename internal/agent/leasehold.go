package agent

import (
	"context"
	"fmt"
	"time"
)

// The lease is held on this rule, so that writes stop before another agent
// can take the lease:
//
//   - A confirmation counts from when its request was sent (the expiry it
//     writes is the sender's now plus the TTL), and only if it is answered
//     within one renew interval. Later answers, and errors, confirm nothing;
//     a renewal still waiting at its deadline is cancelled, so the client's
//     retries and a server's Retry-After cannot stretch it.
//   - Writes are allowed until TTL - renew interval after the last
//     confirmation; then the running sync's context is cancelled, which
//     stops its writes. The last interval before the expiry is the margin for
//     clock skew between agents and for a write already sent when the
//     cancellation came.
//
// The TTL must therefore be at least three renew intervals: one to renew in,
// one to retry a failed renewal in, one of margin. Config validation refuses
// less; withDefaults shortens the interval to fit.
const minRenewalsPerTTL = 3

// renewal is a lease request in flight.
type renewal struct {
	started  time.Time
	deadline time.Time
	cancel   context.CancelFunc
}

type leaseResult struct {
	ok  bool
	err error
}

// acquire starts a lease request in the background, so that the loop keeps
// its own deadlines while Nautobot is slow.
func (l *loop) acquire(ctx context.Context, now time.Time) {
	a := l.a
	rctx, cancel := context.WithCancel(ctx)
	l.renewing = &renewal{started: now, deadline: now.Add(a.cfg.LeaseRenew), cancel: cancel}
	l.nextLease = now.Add(a.cfg.LeaseRenew)
	go func() {
		ok, err := a.lease.Acquire(rctx)
		l.leaseDone <- leaseResult{ok, err}
	}()
}

// acquired takes a lease request's answer at now.
func (l *loop) acquired(r leaseResult, now time.Time) {
	a, ren := l.a, l.renewing
	l.renewing = nil
	ren.cancel()
	if r.ok && r.err == nil && now.After(ren.deadline) {
		r.ok, r.err = false, fmt.Errorf("confirmed after %v, later than the renew interval", now.Sub(ren.started))
	}
	switch {
	case r.err != nil && l.held:
		// Still ours until writeUntil; the next renewal may confirm it.
		a.setCondition(CondLease, false, fmt.Sprintf("renew lease for %s: %v; writes stop at %s unless renewed",
			a.cfg.Site, r.err, l.writeUntil.UTC().Format(time.RFC3339)), false)
	case r.err != nil:
		a.setCondition(CondLease, false, fmt.Sprintf("acquire lease for %s: %v", a.cfg.Site, r.err), false)
	case !r.ok:
		l.lose("another agent holds the lease for " + a.cfg.Site)
		l.standby = true
	default:
		until := ren.started.Add(a.cfg.LeaseTTL - a.cfg.LeaseRenew)
		if !now.Before(until) {
			l.lose(fmt.Sprintf("lease for %s confirmed too late to write", a.cfg.Site))
			return
		}
		if !l.held {
			// The site is planned at once, on views the standby's syncs
			// kept current: every agent consumes Neutron's notifications
			// from a queue of its own, and the target's change log tells
			// what the last holder wrote. An agent that never synced
			// reads both sides whole (a sweep).
			l.pending = merge(l.pending, &Trigger{Full: true})
			l.nextFull = time.Time{}
		}
		l.standby = false
		l.writeUntil = until
		l.setHeld(true)
		a.setCondition(CondLease, true, "this agent holds the lease for "+a.cfg.Site, false)
	}
}

// checkLease enforces the deadlines at now: a lease request past its
// deadline is cancelled, and writes stop once the lease is unconfirmed for
// too long.
func (l *loop) checkLease(now time.Time) {
	if l.renewing != nil && !now.Before(l.renewing.deadline) {
		l.renewing.cancel() // its answer, an error, arrives on leaseDone
	}
	if l.held && !now.Before(l.writeUntil) {
		l.lose(fmt.Sprintf("lease for %s not confirmed in time; stopped writing", l.a.cfg.Site))
	}
}

// lose stops writing: the running sync is cancelled and waits, with the
// rest of the pending work, until the lease is ours again.
func (l *loop) lose(why string) {
	a := l.a
	was := l.held
	l.writeUntil = time.Time{}
	l.setHeld(false)
	a.setCondition(CondLease, false, why, false)
	if was && l.running != nil && !l.running.leaseLost {
		a.log.Warn("lease lost during a sync; abandoning it", "reason", why)
		l.running.leaseLost = true
		l.running.cancel()
	}
}

func (l *loop) setHeld(held bool) {
	a := l.a
	l.held = held
	a.state.setLease(held)
	a.metrics.setLease(held)
}
