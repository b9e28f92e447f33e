// Package sitesync syncs one site's Neutron into the target: in full, or
// narrowed to the networks that Neutron's notifications named. A narrowed
// sync writes exactly what a full sync of the same Neutron state would
// write for those networks, and nothing else.
package sitesync

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/drift"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/rangehealth"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// Source reads a site's Neutron, whole or by network, and says which
// networks changed since a time (Neutron's changed_since), or
// neutron.ErrNoChangeFilter where it cannot.
type Source interface {
	Read(ctx context.Context) (*neutron.Snapshot, error)
	ReadNetworks(ctx context.Context, ids []string) (*neutron.Snapshot, error)
	ChangedNetworks(ctx context.Context, since time.Time) ([]string, error)
	// Requests is how many requests the source has sent.
	Requests() int64
}

// Follower keeps a target's read up to date from its change log between
// whole reads (sot.Target, over changelog.Follower): every read is a
// reconcile.State, which the plan made on it is written through.
type Follower interface {
	Follow(ctx context.Context) (reconcile.State, error)
	Refresh(ctx context.Context) (reconcile.State, changelog.Stats, error)
	RefreshUnchecked(ctx context.Context) (reconcile.State, changelog.Stats, error)
	Sweep(ctx context.Context) (reconcile.State, []changelog.Miss, error)
	Save() (changelog.Saved, bool, error)
	Resume(ctx context.Context, s changelog.Saved) error
	// Requests is how many requests the target's client has sent.
	Requests() int64
}

// Config is one site's sync.
type Config struct {
	Map neutron.MapConfig // KnownGroups is filled from the target on every run
	// TargetSide names the target in an unreachable error, the agent's
	// condition: "nautobot" (the default) or "netbox".
	TargetSide string
	Policy     plan.Policy
	// DryRun plans and reports without writing.
	DryRun bool
	// Notified says Neutron's notifications reach the agent, which then
	// syncs the networks they name: a sync of the whole site need not read
	// Neutron whole to learn of a change, nor of a delete.
	Notified bool
	Log      *slog.Logger
	Clock    clock.Clock
	// Scope is what the target given to New reads, and Rescope makes a
	// target reading another scope. With Rescope, the scope's VLAN groups
	// grow to every group Neutron's VLAN segments map to (a physical
	// network not in physnet_groups maps to the group of its own name):
	// a VLAN already there, unmarked or another owner's, is read and
	// refused in the plan, as in a listed group, not found by a failed
	// write. A grown scope is a new target, read whole; Rescope returns
	// its follower too (nil for a target that keeps no change log).
	Scope   scope.Scope
	Rescope func(sc scope.Scope) (reconcile.Target, Follower)
}

// Request is what one sync covers: the networks Neutron's notifications
// named; else the whole site, read by what changed since the last sync
// where each side can tell; or with Sweep, the whole site read whole.
type Request struct {
	// Networks are the networks Neutron's notifications named. Alone they
	// narrow the sync to themselves; with Full or NeutronWhole they are
	// read anew within the sync of the whole site.
	Networks []string
	// Full asks for the whole site even where Networks name some.
	Full bool
	// NeutronWhole says Neutron changed in ways no network list names (a
	// notification named none, notifications may have been lost): the
	// whole site is synced on a whole read of Neutron. changed_since would
	// not do: it lists no deletes.
	NeutronWhole bool
	Sweep        bool
	// Standby says another agent holds the lease: the sync reads what the
	// request asks of both sides, as the holder's sync would, and plans
	// and writes nothing. The views it keeps current are what this agent
	// plans on when it takes the lease over, instead of reading Neutron
	// whole then. A narrowed standby sync reads Neutron alone, unless the
	// target's view must be read anew (the scope grew): the next sync of
	// the whole site brings the view up to date.
	Standby bool
}

// Outcome is what one sync did. A nil Plan means nothing was concluded for
// the whole site: a side could not be read, or the sync was narrowed.
type Outcome struct {
	Plan   *plan.Plan
	Writes int
	Drift  drift.Owner
	// Reads, Objects and Whole are per side ("neutron", "target"): the
	// requests sent, the objects read, and whether the side was read whole.
	Reads   map[string]int
	Objects map[string]int
	Whole   map[string]bool
	// Misses are, per side, what a sweep, or the check of the target's
	// followed view, found that reading by changes had missed.
	Misses map[string][]string
	// Unchanged says neither side changed since the last sync, which
	// succeeded, so nothing was planned.
	Unchanged bool
	// Ranges is how full Neutron's segment ranges and the target's VLAN
	// groups are, after a sync of the whole site read both sides (a
	// standby's too); nil after a narrowed one, which reads part of them.
	Ranges []rangehealth.Usage
}

// UnreachableError is a sync that could not read a side ("neutron",
// or the target: "nautobot", "netbox"); nothing was planned, so nothing was deleted.
type UnreachableError struct {
	Side string
	Err  error
}

func (e *UnreachableError) Error() string { return e.Side + " unreachable: " + e.Err.Error() }
func (e *UnreachableError) Unwrap() error { return e.Err }

// Syncer keeps the last Neutron snapshot: a narrowed sync maps it, patched
// with the named networks as Neutron has them now, in whole. A target with
// a Follower keeps its own view between whole reads.
type Syncer struct {
	cfg    Config
	source Source
	target reconcile.Target
	// follower follows the target's change log; nil where it keeps none
	// (the in-memory target), which is then read whole every sync.
	follower Follower

	mu sync.Mutex // one sync at a time; guards the rest
	// last is Neutron as the last successful sync saw it.
	last *neutron.Snapshot
	// lastRead is when the last successful sync of the whole site began,
	// by our clock: changed_since asks from there, less changelog.Overlap
	// for the two clocks' disagreement and late commits.
	lastRead time.Time
	// following says the target's view is up to date as of the last sync.
	following bool
	// noChangedSince remembers a Neutron that refused changed_since.
	noChangedSince bool
	// proof, after ResumeNeutron, brings the verdict the first sync
	// waits for; resumed are the networks the saved state named.
	proof   <-chan Proof
	resumed []string
	// settled says the last sync succeeded: with both sides as they were
	// then, a plan has nothing left to do.
	settled bool
}

// New returns a Syncer of target, whose change log follower follows (nil
// for a target read whole every sync).
func New(cfg Config, source Source, target reconcile.Target, follower Follower) *Syncer {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real()
	}
	if cfg.TargetSide == "" {
		cfg.TargetSide = "nautobot"
	}
	return &Syncer{cfg: cfg, source: source, target: target, follower: follower}
}

// Sync reads both sides, plans and writes, as req asks. Before the first
// successful sync every request is a sweep.
//
// A narrowed sync maps the whole site, the last snapshot with the named
// networks read anew, because names, namespaces and which of two records
// claiming one object wins are decided across the site. Its plan covers
// the objects the named networks account for now or did before; an object
// the whole mapping still produces is updated to its winner, never
// deleted, and no other network's objects are touched.
//
// A sync of the whole site plans every object, on the target's view
// brought up to date from its change log and on the last snapshot patched
// with the networks Neutron says changed (changed_since) or, when neither
// that nor notifications tell of changes, on a whole read of Neutron.
func (s *Syncer) Sync(ctx context.Context, req Request) (Outcome, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := Outcome{Reads: map[string]int{}, Objects: map[string]int{}, Whole: map[string]bool{}, Misses: map[string][]string{}}
	if s.proof != nil {
		var err error
		if req, err = s.awaitProof(ctx, req); err != nil {
			return out, err
		}
	}
	// A Syncer resumed on the target's side alone follows the target on
	// from its saved view, but knows nothing of Neutron: the first sync
	// reads it whole.
	sweep := req.Sweep || s.last == nil && !s.following
	req.NeutronWhole = req.NeutronWhole || s.last == nil
	narrowed := len(req.Networks) > 0 && !req.Full && !req.NeutronWhole && !sweep
	wasSettled := s.settled
	started := s.cfg.Clock.Now()
	before := map[string]int64{"neutron": s.source.Requests(), "target": s.targetRequests()}
	defer func() {
		out.Reads["neutron"] = int(s.source.Requests() - before["neutron"])
		out.Reads["target"] = int(s.targetRequests() - before["target"])
	}()

	snap, sc, err := s.readNeutron(ctx, req, sweep, narrowed, &out)
	if err != nil {
		s.settled = false
		return out, &UnreachableError{Side: "neutron", Err: err}
	}
	s.rescope(snap)
	// A standby's narrowed sync leaves the target to the next sync of the
	// whole site, unless the view is gone (the scope grew): it reads the
	// target whole now, not when it takes the lease over.
	if req.Standby && narrowed && s.following {
		s.last, s.settled = snap, false
		return out, nil
	}
	st, changed, err := s.readTarget(ctx, sweep, narrowed, &out)
	if err != nil {
		s.settled = false
		return out, &UnreachableError{Side: s.cfg.TargetSide, Err: err}
	}
	if !narrowed {
		out.Ranges = RangeUsage(snap, st.Objects())
	}
	if req.Standby {
		// The views are current; what they call for is the holder's to
		// plan, and this agent's first sync as the holder plans it.
		if sweep {
			s.neutronMisses(snap, st.Objects(), &out)
		}
		s.last, s.settled = snap, false
		if !narrowed {
			s.lastRead = started
		}
		return out, nil
	}
	// Planning the same two sides again would give the plan the last sync
	// carried out: a site where nothing happens costs its reads alone.
	if !sweep && !narrowed && s.settled && snap == s.last && !changed {
		out.Unchanged = true
		s.lastRead = started
		return out, nil
	}
	var report neutron.Report
	desired := func(ctx context.Context, current []resource.Object) ([]resource.Object, error) {
		mc := s.cfg.Map
		mc.KnownGroups = KnownGroups(current)
		objs, r := neutron.Map(snap, mc)
		report = r
		if sweep {
			s.neutronMissesOf(objs, mc, &out)
		}
		return objs, nil
	}
	r, err := reconcile.MakeOn(ctx, st, desired, s.cfg.Policy, sc, s.target.Server())
	if err != nil {
		s.following, s.settled = false, false
		return out, &UnreachableError{Side: s.cfg.TargetSide, Err: err}
	}
	res, err := s.apply(ctx, r, report)
	out.Plan, out.Writes, out.Drift = res.Plan, res.Writes, res.Drift
	s.settled = err == nil && !s.cfg.DryRun
	if narrowed {
		// The target's changes outside the named networks were read but
		// not planned against: until a sync of the whole site plans them,
		// the site is settled only if there were none.
		s.settled = s.settled && wasSettled && !changed
	}
	if err == nil {
		s.last = snap
		if !narrowed {
			s.lastRead = started
		}
	}
	if sc.Only != nil {
		out.Plan = nil // a part of the site: the agent keeps the full drift it has
	}
	return out, err
}

// rescope widens the target's scope to the VLAN groups snap maps to, if
// it lacks some: the target is then a new one, read whole.
func (s *Syncer) rescope(snap *neutron.Snapshot) {
	if s.cfg.Rescope == nil {
		return
	}
	groups := slices.Clone(s.cfg.Scope.VLANGroups)
	for _, g := range neutron.Groups(snap, s.cfg.Map) {
		if !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	if len(groups) == len(s.cfg.Scope.VLANGroups) {
		return
	}
	slices.Sort(groups)
	s.cfg.Log.Info("VLAN groups read widened to those of Neutron's physical networks", "groups", groups)
	s.cfg.Scope.VLANGroups = groups
	s.target, s.follower = s.cfg.Rescope(s.cfg.Scope)
	s.following, s.settled = false, false
}

// neutronFollowed says whether the last snapshot was kept up to date by
// what Neutron tells of changes rather than read whole every sync.
func (s *Syncer) neutronFollowed() bool { return s.cfg.Notified }

// neutronMisses counts, after a sweep's whole read snap, what following
// Neutron had missed in the last snapshot, mapped against current.
func (s *Syncer) neutronMisses(snap *neutron.Snapshot, current []resource.Object, out *Outcome) {
	if s.last == nil || !s.neutronFollowed() {
		return
	}
	mc := s.cfg.Map
	mc.KnownGroups = KnownGroups(current)
	objs, _ := neutron.Map(snap, mc)
	s.neutronMissesOf(objs, mc, out)
}

// neutronMissesOf counts what following Neutron had missed in the last
// snapshot, where objs is a whole read's mapping with mc.
func (s *Syncer) neutronMissesOf(objs []resource.Object, mc neutron.MapConfig, out *Outcome) {
	if s.last == nil || !s.neutronFollowed() {
		return
	}
	prev, _ := neutron.Map(s.last, mc)
	for _, m := range changelog.CompareBy(prev, objs, func(o resource.Object) string { return o.Key().String() }) {
		out.Misses["neutron"] = append(out.Misses["neutron"], m.String())
	}
}

// readNeutron reads what req needs of Neutron, and the scope of the plan.
func (s *Syncer) readNeutron(ctx context.Context, req Request, sweep, narrowed bool, out *Outcome) (*neutron.Snapshot, scope.Scope, error) {
	switch {
	case narrowed:
		fresh, err := s.source.ReadNetworks(ctx, req.Networks)
		if err != nil {
			return nil, scope.Scope{}, err
		}
		snap := replace(s.last, req.Networks, fresh)
		out.Objects["neutron"] = records(fresh)
		// Without the target's groups the footprint may hold VLANs of
		// groups it lacks: more than needed, never less.
		return snap, scope.Scope{Only: neutron.Footprint(s.cfg.Map, req.Networks, s.last, snap)}, nil
	case !sweep && !req.NeutronWhole:
		ids, told, err := s.changedNetworks(ctx)
		if err != nil {
			return nil, scope.Scope{}, err
		}
		if told {
			ids = slices.Concat(ids, req.Networks)
			slices.Sort(ids)
			ids = slices.Compact(ids)
			if len(ids) == 0 {
				return s.last, scope.Scope{}, nil
			}
			fresh, err := s.source.ReadNetworks(ctx, ids)
			if err != nil {
				return nil, scope.Scope{}, err
			}
			out.Objects["neutron"] = records(fresh)
			return replace(s.last, ids, fresh), scope.Scope{}, nil
		}
	}
	snap, err := s.source.Read(ctx)
	if err != nil {
		return nil, scope.Scope{}, err
	}
	out.Whole["neutron"] = true
	out.Objects["neutron"] = records(snap)
	return snap, scope.Scope{}, nil
}

// changedNetworks are the networks Neutron says changed since the last
// sync of the whole site (changed_since), where it takes the filter. told
// says whether Neutron's changes are known without a whole read: from
// notifications, which name the networks they touch (deletes included)
// in the request, with changed_since for the changes no notification
// tells of (ports made over RPC, such as DHCP ports).
func (s *Syncer) changedNetworks(ctx context.Context) (ids []string, told bool, err error) {
	// changed_since lists no deletes: without notifications to name
	// them, only a whole read sees a port or a network gone.
	if !s.cfg.Notified {
		return nil, false, nil
	}
	if !s.noChangedSince && !s.lastRead.IsZero() {
		ids, err := s.source.ChangedNetworks(ctx, s.lastRead.Add(-changelog.Overlap))
		switch {
		case errors.Is(err, neutron.ErrNoChangeFilter):
			s.noChangedSince = true
			s.cfg.Log.Info("neutron refuses changed_since: syncs of the whole site learn of its changes from notifications, or read it whole", "notified", s.cfg.Notified)
		case err != nil:
			return nil, false, err
		default:
			return ids, true, nil
		}
	}
	return nil, s.cfg.Notified, nil
}

// readTarget reads the target's objects: by its change log where it
// keeps one and can follow it, else whole. changed is false only when the
// change log said nothing changed since the last read. A narrowed sync
// leaves the check of the followed view to the sync of the whole site,
// which runs every cycle: a notification costs no check, and a write the
// narrowed sync bases on a view the log left stale is one whose owner
// the write confirms, or a create the target refuses as taken.
func (s *Syncer) readTarget(ctx context.Context, sweep, narrowed bool, out *Outcome) (reconcile.State, bool, error) {
	f := s.follower
	if f == nil {
		return s.readWhole(ctx, out)
	}
	if !sweep && s.following {
		refresh := f.Refresh
		if narrowed {
			refresh = f.RefreshUnchecked
		}
		view, stats, err := refresh(ctx)
		if err == nil {
			out.Objects["target"] = stats.Read + stats.Checked
			// What the check of the view found the log had not named
			// is a miss like a sweep's: counted, and logged.
			for _, m := range stats.Missed {
				out.Misses["target"] = append(out.Misses["target"], m.String())
			}
			return view, stats.Reread > 0 || stats.Gone > 0, nil
		}
		s.cfg.Log.Info("target read whole: its change log cannot be followed", "reason", err)
	}
	s.following = false
	out.Whole["target"] = true
	var (
		st     reconcile.State
		misses []changelog.Miss
		err    error
	)
	if sweep {
		st, misses, err = f.Sweep(ctx)
	} else {
		st, err = f.Follow(ctx)
	}
	if _, unreadable := errors.AsType[*changelog.UnreadableError](err); unreadable {
		s.cfg.Log.Warn("target read whole every sync: its change log cannot be read (does the token allow viewing object changes?)", "err", err)
		return s.readWhole(ctx, out)
	}
	if err != nil {
		return nil, true, err
	}
	s.following = true
	out.Objects["target"] = len(st.Objects())
	for _, m := range misses {
		out.Misses["target"] = append(out.Misses["target"], m.String())
	}
	return st, true, nil
}

// readWhole reads the target whole, without its change log.
func (s *Syncer) readWhole(ctx context.Context, out *Outcome) (reconcile.State, bool, error) {
	out.Whole["target"] = true
	st, err := s.target.Read(ctx)
	if err != nil {
		return nil, true, err
	}
	out.Objects["target"] = len(st.Objects())
	return st, true, nil
}

// targetRequests is how many requests the target has sent: none for a
// target without a follower, which is the in-memory one.
func (s *Syncer) targetRequests() int64 {
	if s.follower == nil {
		return 0
	}
	return s.follower.Requests()
}

func records(s *neutron.Snapshot) int {
	return len(s.Networks) + len(s.Segments) + len(s.Subnets) + len(s.Ports) + len(s.Ranges)
}

func (s *Syncer) apply(ctx context.Context, r *reconcile.Result, report neutron.Report) (Outcome, error) {
	out := Outcome{Plan: r.Plan, Drift: drift.FromPlan(r.Plan, Leaks(report, s.target.Server()))}
	if s.cfg.DryRun {
		return out, nil
	}
	n, err := r.Apply(ctx)
	out.Writes = n
	if err != nil {
		return out, fmt.Errorf("site %s: %w", s.cfg.Map.Site, err)
	}
	// Everything planned was written: what remains is the leaks.
	out.Drift = out.Drift.Written()
	return out, nil
}

// KnownGroups are the names of the VLAN groups in current.
func KnownGroups(current []resource.Object) map[string]bool {
	out := map[string]bool{}
	for _, o := range current {
		if g, ok := o.(*resource.VLANGroup); ok {
			out[g.Name] = true
		}
	}
	return out
}
