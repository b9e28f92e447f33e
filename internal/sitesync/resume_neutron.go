package sitesync

import (
	"context"
	"slices"
	"time"

	"github.com/ipsync/ipsync/internal/neutron"
)

// NeutronState is Neutron as the last successful sync saw it, with what
// a restart needs to follow on from it.
type NeutronState struct {
	Snapshot *neutron.Snapshot
	// LastRead is when the last sync of the whole site began, by our
	// clock: changed_since asks from there.
	LastRead time.Time
	// Networks are those notifications named that no sync covered yet:
	// taken from the queue, they are nowhere else.
	Networks []string
}

// Proof is what Neutron's notification queue says of the time since the
// state was saved: Kept if every notification since is in it, with the
// networks those before the verdict named; Reason says why not.
type Proof struct {
	Kept         bool
	Reason       string
	Networks     []string
	Unattributed bool
}

// proofWait bounds how long the first sync after a resume waits for the
// queue's verdict before it reads Neutron whole: the verdict comes as
// soon as the consumer has read the queue's backlog.
const proofWait = 30 * time.Second

// SaveNeutron is Neutron as the last successful sync saw it; false
// before one.
func (s *Syncer) SaveNeutron() (NeutronState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last == nil {
		return NeutronState{}, false
	}
	return NeutronState{Snapshot: s.last, LastRead: s.lastRead}, true
}

// ResumeNeutron follows Neutron on from st, once proof says the
// notifications since st was saved are all in the agent's queue: the
// first sync waits for that word, then reads anew the networks st and
// the queue name (and, where Neutron takes it, what changed_since
// lists). Without it, or after proofWait, it reads Neutron whole.
func (s *Syncer) ResumeNeutron(st NeutronState, proof <-chan Proof) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last, s.lastRead = st.Snapshot, st.LastRead
	s.proof, s.resumed = proof, slices.Clone(st.Networks)
}

// awaitProof turns the queue's verdict into what the first sync after
// ResumeNeutron reads of Neutron.
func (s *Syncer) awaitProof(ctx context.Context, req Request) (Request, error) {
	t := s.cfg.Clock.NewTimer(proofWait)
	defer t.Stop()
	var p Proof
	select {
	case p = <-s.proof:
	case <-t.C():
		p.Reason = "no verdict from the notification queue within " + proofWait.String()
	case <-ctx.Done():
		return req, ctx.Err() // the next sync waits again
	}
	s.proof = nil
	networks := s.resumed
	s.resumed = nil
	if !p.Kept || p.Unattributed {
		if p.Kept {
			p.Reason = "a notification since the stop named no network"
		}
		s.cfg.Log.Info("Neutron read whole: the saved Neutron cannot be followed on from", "reason", p.Reason)
		req.NeutronWhole = true
		return req, nil
	}
	ids := slices.Concat(req.Networks, networks, p.Networks)
	slices.Sort(ids)
	req.Networks, req.Full = slices.Compact(ids), true
	s.cfg.Log.Info("following on from the saved Neutron: the notification queue kept everything since the stop", "networks", len(req.Networks))
	return req, nil
}
