package cli

import (
	"context"
	"errors"

	"github.com/ipsync/ipsync/internal/agent"
	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/sitesync"
)

// siteSyncer runs a site's sync for the agent: the agent's triggers name
// networks, its conditions name the side a failed read could not reach.
// With a state, each sync that succeeded is saved for a restart.
type siteSyncer struct {
	s     *sitesync.Syncer
	state *siteState
	clock clock.Clock
	// toNeutron writes the spec's objects the site opts in to to its
	// Neutron; nil when it opts in to none.
	toNeutron *specToNeutron
}

func (a siteSyncer) Sync(ctx context.Context, t *agent.Trigger) (agent.Outcome, error) {
	req := sitesync.Request{Sweep: true}
	if t != nil {
		req = sitesync.Request{Networks: t.NetworkIDs, Full: t.Full, NeutronWhole: t.Unattributed, Sweep: t.Sweep, Standby: t.Standby}
	}
	started := a.clock.Now()
	out, err := a.s.Sync(ctx, req)
	if err == nil && a.state != nil {
		a.state.synced(req.Sweep, started)
	}
	if ue, ok := errors.AsType[*sitesync.UnreachableError](err); ok {
		err = agent.Unreachable(ue.Side, ue.Err)
	}
	o := agent.Outcome{Plan: out.Plan, Writes: out.Writes, Drift: out.Drift,
		Reads: out.Reads, Objects: out.Objects, Whole: out.Whole, Misses: out.Misses, Ranges: out.Ranges}
	// The other direction goes with every sync of the whole site by the
	// lease's holder (or a dry run), whatever the first one's result: the
	// two read and write different things. A standby writes nothing, and
	// a sync cancelled (the lease lost, a stop) starts nothing more.
	if a.toNeutron != nil && (t == nil || t.Full && !t.Standby) && ctx.Err() == nil {
		o.Neutron = a.toNeutron.sync(ctx)
	}
	return o, err
}
