package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/clock"
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
}

// resume makes s follow on from the saved state if it can be, and says
// how the agent starts, for the log and the status page.
func (st *siteState) resume(ctx context.Context, sc scope.Scope) string {
	saved, err := statefile.Load(st.path)
	switch {
	case errors.Is(err, statefile.ErrMissing):
		st.log.Info("no saved state: the first sync is a sweep", "state", st.path)
		return "sweep: no saved state in " + st.path
	case err != nil:
		st.log.Warn("saved state unreadable: the first sync is a sweep", "err", err)
		return "sweep: " + err.Error()
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
	st.log.Info("resumed from the saved state: the target is read by its change log since, Neutron whole",
		"state", st.path, "saved_at", saved.SavedAt, "objects", len(saved.View.Objects), "last_sweep", saved.LastSweep)
	return fmt.Sprintf("resumed from the state saved at %s (%d objects): the target read by its change log since, Neutron whole",
		saved.SavedAt.UTC().Format(time.RFC3339), len(saved.View.Objects))
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
func (st *siteState) save() {
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
	s := &statefile.State{Header: st.header, SavedAt: now, LastSweep: st.lastSweep, Scope: statefile.ScopeOf(sc), View: view}
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
