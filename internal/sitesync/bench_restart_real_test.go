package sitesync

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/nautobot"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/statefile"
)

// benchRestarts measures the first syncs of two new processes that follow
// on from s's state, written to a file and read back as the agent does,
// with 10 of the site's VLAN networks renamed while they were stopped
// (the notification queue kept everything since, and names those
// networks): a standby's, which writes nothing, the holder's, which
// writes the renames, and then the standby's on taking the lease over,
// on the views its first sync kept. It returns the renamed networks' old
// names.
func benchRestarts(b *testing.B, s *Syncer, n *realNeutron, src *neutron.Reader, newTarget func() *nautobot.Target,
	mc neutron.MapConfig, policy plan.Policy, measure func(string, *Syncer, Request) Outcome) map[string]string {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "bench.state.json")
	header := statefile.Header{Format: statefile.Format, Version: "bench", Site: "bench", Owner: string(policy.Owner), Target: "bench"}
	start := time.Now()
	sc, view, err := s.Save()
	if err != nil {
		b.Fatalf("save the state: %v", err)
	}
	st := &statefile.State{Header: header, SavedAt: time.Now(), Scope: statefile.ScopeOf(sc), View: view}
	if ns, ok := s.SaveNeutron(); ok {
		st.Neutron = &statefile.Neutron{Snapshot: ns.Snapshot, LastRead: ns.LastRead}
	}
	if err := statefile.Save(path, st); err != nil {
		b.Fatal(err)
	}
	b.Logf("%-44s %8.2f s", "save the state (the view and Neutron)", time.Since(start).Seconds())

	var nets struct {
		Networks []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"networks"`
	}
	n.call(http.MethodGet, "/networks?provider:network_type=vlan&limit=10&fields=id&fields=name", nil, &nets)
	renamed, changed := map[string]string{}, []string{}
	for _, net := range nets.Networks {
		renamed[net.ID] = net.Name
		changed = append(changed, net.ID)
		n.call(http.MethodPut, "/networks/"+net.ID, map[string]any{"network": map[string]any{"name": net.Name + "-while-stopped"}}, nil)
	}

	// load is a new process following on from the saved state, after a
	// clean stop: the queue kept everything since, and names the renames.
	load := func(what string) *Syncer {
		start := time.Now()
		loaded, err := statefile.Load(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := loaded.Usable(header, loaded.Scope.Scope(), time.Now(), 24*time.Hour); err != nil {
			b.Fatalf("the saved state is not usable: %v", err)
		}
		r := newTestSyncer(Config{Map: mc, Policy: policy, Notified: true, Scope: loaded.Scope.Scope(), Log: slog.New(slog.DiscardHandler)}, src, newTarget())
		if err := r.Resume(ctx, loaded.Scope.Scope(), loaded.View); err != nil {
			b.Fatalf("resume: %v", err)
		}
		proof := make(chan Proof, 1)
		proof <- Proof{Kept: true, Networks: changed}
		r.ResumeNeutron(NeutronState{Snapshot: loaded.Neutron.Snapshot, LastRead: loaded.Neutron.LastRead}, proof)
		b.Logf("%-44s %8.2f s", "load the state, resume ("+what+")", time.Since(start).Seconds())
		return r
	}
	// The standby restarts too: its first sync brings its views up to
	// date and writes nothing.
	standby := load("standby")
	if out := measure("a standby's first sync after a clean restart", standby, Request{Full: true, Standby: true}); out.Whole["neutron"] || out.Whole["target"] || out.Writes != 0 {
		b.Errorf("the standby's first sync read whole %v and wrote %d", out.Whole, out.Writes)
	}
	holder := load("holder")
	if out := measure("first sync after a clean restart", holder, Request{Full: true}); out.Whole["neutron"] || out.Whole["target"] || out.Writes == 0 {
		b.Errorf("the first sync after a clean restart read whole %v and wrote %d, want the renames", out.Whole, out.Writes)
	}
	// The holder goes; the standby takes the lease over and plans on the
	// views it kept: the holder's writes come from the change log, and
	// nothing is left to write.
	if out := measure("first sync after a lease takeover", standby, Request{Full: true}); out.Whole["neutron"] || out.Whole["target"] || out.Writes != 0 {
		b.Errorf("the takeover read whole %v and wrote %d objects, want neither", out.Whole, out.Writes)
	}
	return renamed
}
