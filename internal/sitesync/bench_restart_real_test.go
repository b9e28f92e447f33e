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

// benchRestarts measures the first sync of a new process that follows on
// from s's state, written to a file and read back as the agent does, with
// 10 of the site's VLAN networks renamed while it was stopped: once after a
// clean stop (the notification queue kept everything since, and names
// those networks) and once on taking the lease over from another agent
// (no word from the queue: Neutron is read whole). It returns the renamed
// networks' old names.
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

	for _, tt := range []struct {
		what string
		kept bool
	}{
		{what: "first sync after a clean restart", kept: true},
		{what: "first sync after a lease takeover", kept: false},
	} {
		start := time.Now()
		loaded, err := statefile.Load(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := loaded.Usable(header, loaded.Scope.Scope(), time.Now(), 24*time.Hour); err != nil {
			b.Fatalf("the saved state is not usable: %v", err)
		}
		r := New(Config{Map: mc, Policy: policy, Notified: true, Scope: loaded.Scope.Scope(), Log: slog.New(slog.DiscardHandler)}, src, newTarget())
		if err := r.Resume(ctx, loaded.Scope.Scope(), loaded.View); err != nil {
			b.Fatalf("resume: %v", err)
		}
		if tt.kept {
			proof := make(chan Proof, 1)
			proof <- Proof{Kept: true, Networks: changed}
			r.ResumeNeutron(NeutronState{Snapshot: loaded.Neutron.Snapshot, LastRead: loaded.Neutron.LastRead}, proof)
		}
		b.Logf("%-44s %8.2f s", "load the state, resume", time.Since(start).Seconds())
		out := measure(tt.what, r, Request{Full: true, Takeover: !tt.kept})
		if tt.kept && (out.Whole["neutron"] || out.Whole["target"]) {
			b.Errorf("%s read whole %v", tt.what, out.Whole)
		}
		// The restart writes the renames; the takeover, from the same
		// state, finds them written.
		if !tt.kept && out.Writes != 0 {
			b.Errorf("%s wrote %d objects, want none", tt.what, out.Writes)
		}
	}
	return renamed
}
