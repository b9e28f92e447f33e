package cli

import (
	"context"
	"errors"

	"github.com/ipsync/ipsync/internal/agent"
	"github.com/ipsync/ipsync/internal/sitesync"
)

// siteSyncer runs a site's sync for the agent: the agent's triggers name
// networks, its conditions name the side a failed read could not reach.
type siteSyncer struct{ s *sitesync.Syncer }

func (a siteSyncer) Sync(ctx context.Context, t *agent.Trigger) (agent.Outcome, error) {
	req := sitesync.Request{Sweep: true}
	if t != nil {
		req = sitesync.Request{Networks: t.NetworkIDs, Full: t.Full, NeutronWhole: t.Unattributed, Sweep: t.Sweep}
	}
	out, err := a.s.Sync(ctx, req)
	if ue, ok := errors.AsType[*sitesync.UnreachableError](err); ok {
		err = agent.Unreachable(ue.Side, ue.Err)
	}
	return agent.Outcome{Plan: out.Plan, Writes: out.Writes, Drift: out.Drift,
		Reads: out.Reads, Objects: out.Objects, Whole: out.Whole, Misses: out.Misses}, err
}
