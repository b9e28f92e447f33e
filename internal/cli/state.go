package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ipsync/ipsync/internal/agent"
	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/events"
	"github.com/ipsync/ipsync/internal/rangehealth"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sitesync"
	"github.com/ipsync/ipsync/internal/statefile"
)

// saveEvery bounds how often a site's state is written: a state a little
// behind only makes the resumed agent read more of the change log, and
// writing a site of 100k objects takes a fraction of a second.
const saveEvery = time.Minute

// siteState keeps one site's state file: read when the agent starts,
// written after syncs and when it stops.
type siteState struct {
	path   string
	header statefile.Header
	s      *sitesync.Syncer
	clock  clock.Clock
	log    *slog.Logger

	mu        sync.Mutex
	saved     time.Time // by our clock, zero before the first save
	lastSweep time.Time
	// marker is the one the saved state's clean stop left in the queue,
	// and proof takes the consumer's verdict on it to the Syncer; nil
	// when Neutron is read whole at start.
	marker *events.Marker
	proof  chan sitesync.Proof
	// queue is the agent's own notification queue, kept in the state
	// for the next start (see ownQueue).
	queue string
	// ranges is the agent's history of the ranges' use, restored at start
	// and saved with the state.
	ranges *rangehealth.History
}

// queueName is the queue the saved state names, if it is one of prefix,
// else a new one; either is saved with the state from now on.
func (st *siteState) queueName(prefix string) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !strings.HasPrefix(st.queue, prefix+".") {
		st.queue = newQueueName(prefix)
	}
	return st.queue
}

// resume makes s follow on from the saved state if it can be, and says
// how the agent starts, for the log and the status page.
func (st *siteState) resume(ctx context.Context, sc scope.Scope, notified bool) string {
	saved, err := statefile.Load(st.path)
	switch {
	case errors.Is(err, statefile.ErrMissing):
		st.log.Info("no saved state: the first sync is a sweep", "state", st.path)
		return "sweep: no saved state in " + st.path
	case err != nil:
		st.log.Warn("saved state unreadable: the first sync is a sweep", "err", err)
		return "sweep: " + err.Error()
	}
	st.queue = saved.Queue
	// The counts are the site's whatever the version or the scope: the
	// forecasts go on from them even after a sweep.
	if st.ranges != nil && saved.Site == st.header.Site {
		st.ranges.Restore(saved.Ranges)
	}
	if err := saved.Usable(st.header, sc, st.clock.Now(), changelog.MaxGap); err != nil {
		st.log.Warn("saved state not followed on from: the first sync is a sweep", "state", st.path, "reason", err)
		return "sweep: the saved state cannot be followed on from: " + err.Error()
	}
	if err := st.s.Resume(ctx, saved.Scope.Scope(), saved.View); err != nil {
		st.log.Warn("saved state not followed on from: the first sync is a sweep", "state", st.path, "err", err)
		return "sweep: " + err.Error()
	}
	st.lastSweep = saved.LastSweep
	neutronHow := "Neutron whole: " + st.neutronWhy(saved)
	if n := saved.Neutron; n != nil && notified {
		st.marker, st.proof = &n.Marker, make(chan sitesync.Proof, 1)
		st.s.ResumeNeutron(sitesync.NeutronState{Snapshot: n.Snapshot, LastRead: n.LastRead, Networks: n.Networks}, st.proof)
		neutronHow = "Neutron by the notifications queued since, if the queue kept them all, else whole"
	}
	st.log.Info("resumed from the saved state: the target is read by its change log since, "+neutronHow,
		"state", st.path, "saved_at", saved.SavedAt, "objects", len(saved.View.Objects), "last_sweep", saved.LastSweep)
	return fmt.Sprintf("resumed from the state saved at %s (%d objects): the target read by its change log since, %s",
		saved.SavedAt.UTC().Format(time.RFC3339), len(saved.View.Objects), neutronHow)
}

// neutronWhy says why a resumed agent reads Neutron whole.
func (st *siteState) neutronWhy(saved *statefile.State) string {
	if saved.Neutron == nil {
		return "the agent that saved the state did not stop cleanly while consuming notifications"
	}
	return "notifications are not configured (agent.rabbitmq)"
}

// resumeOptions make the consumer check the queue against the marker of
// the saved state's stop and tell the Syncer its verdict.
func (st *siteState) resumeOptions() []events.Option {
	if st == nil || st.marker == nil {
		return nil
	}
	return []events.Option{events.WithResume(*st.marker, func(v events.Verdict) {
		st.proof <- sitesync.Proof{Kept: v.Kept, Reason: v.Reason, Networks: v.Networks, Unattributed: v.Unattributed}
	})}
}

// stop saves the state when the agent has stopped. Neutron as the last
// sync saw it is kept too, with the work no sync finished, if the agent
// consumed notifications until it stopped, as holder or standby: mark
// leaves the marker that lets the next start tell whether the queue kept
// what came since. Otherwise the next start reads Neutron whole.
func (st *siteState) stop(ctx context.Context, stopped agent.Stopped, mark func(context.Context) (events.Marker, error)) {
	n, why := st.neutronAtStop(ctx, stopped, mark)
	if n == nil {
		st.log.Info("Neutron is read whole at the next start", "reason", why)
	}
	st.saveWith(n)
}

func (st *siteState) neutronAtStop(ctx context.Context, stopped agent.Stopped, mark func(context.Context) (events.Marker, error)) (*statefile.Neutron, string) {
	pending := stopped.Pending
	switch {
	case mark == nil:
		return nil, "no notifications consumed, or not all of those consumed reached the agent"
	case pending != nil && (pending.Unattributed || pending.RangesChanged):
		return nil, "a change no network list names was not synced yet"
	}
	ns, ok := st.s.SaveNeutron()
	if !ok {
		return nil, "no sync succeeded"
	}
	m, err := mark(ctx)
	if err != nil {
		return nil, "no marker left in the queue: " + err.Error()
	}
	n := &statefile.Neutron{Snapshot: ns.Snapshot, LastRead: ns.LastRead, Marker: m}
	if pending != nil {
		n.Networks = pending.NetworkIDs
	}
	return n, ""
}

// synced saves the state after a sync that succeeded: at once after a
// sweep, else at most every saveEvery.
func (st *siteState) synced(sweep bool, started time.Time) {
	st.mu.Lock()
	if sweep {
		st.lastSweep = started
	}
	due := sweep || st.saved.IsZero() || st.clock.Now().Sub(st.saved) >= saveEvery
	st.mu.Unlock()
	if due {
		st.save()
	}
}

// save writes the state now; a Syncer with nothing followed (its target's
// log was just distrusted, or it keeps none) leaves the last one.
func (st *siteState) save() { st.saveWith(nil) }

func (st *siteState) saveWith(n *statefile.Neutron) {
	st.mu.Lock()
	defer st.mu.Unlock()
	sc, view, err := st.s.Save()
	if errors.Is(err, sitesync.ErrNotFollowing) {
		return
	}
	if err != nil {
		st.log.Warn("state not saved", "err", err)
		return
	}
	now := st.clock.Now()
	s := &statefile.State{Header: st.header, SavedAt: now, LastSweep: st.lastSweep, Scope: statefile.ScopeOf(sc), View: view, Neutron: n, Queue: st.queue}
	if st.ranges != nil {
		s.Ranges = st.ranges.Saved()
	}
	if err := os.MkdirAll(filepath.Dir(st.path), 0o700); err != nil {
		st.log.Warn("state not saved", "err", err)
		return
	}
	if err := statefile.Save(st.path, s); err != nil {
		st.log.Warn("state not saved", "err", err)
		return
	}
	st.saved = now
	st.log.Debug("state saved", "state", st.path, "objects", len(view.Objects))
}
