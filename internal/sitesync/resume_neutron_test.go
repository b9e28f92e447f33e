package sitesync

import (
	"context"
	"slices"
	"testing"

	"github.com/ipsync/ipsync/internal/memory"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// TestResumeNeutronWaitsForTheQueue: a restarted Syncer follows on from
// the Neutron it saved only on the queue's word that every notification
// since is there, and reads anew the networks they and the saved state
// name; otherwise it reads Neutron whole. Either way the target ends up
// as Neutron is.
func TestResumeNeutronWaitsForTheQueue(t *testing.T) {
	cases := []struct {
		name  string
		proof Proof
		// pending are the networks the stopped agent had not synced.
		pending []string
		// req is the first sync's; the agent's first periodic one by
		// default.
		req   *Request
		whole bool
	}{
		{name: "kept, the queue names the new network", proof: Proof{Kept: true, Networks: []string{"n2"}}},
		{name: "kept, and a notification after the backlog names it", proof: Proof{Kept: true},
			req: &Request{Full: true, Networks: []string{"n2"}}},
		{name: "kept, but a notification after the backlog named no network", proof: Proof{Kept: true, Networks: []string{"n2"}},
			req: &Request{Full: true, NeutronWhole: true}, whole: true},
		{name: "kept, the saved state names it", proof: Proof{Kept: true}, pending: []string{"n2"}},
		{name: "not kept", proof: Proof{Reason: "the witness exchange is gone"}, whole: true},
		{name: "kept, but a notification named no network", proof: Proof{Kept: true, Unattributed: true}, whole: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			owner := resource.NeutronOwner("a11")
			store := memory.New(&resource.Namespace{Name: "a11"}, &resource.VLANGroup{Name: "a11-12-network"})
			src := &fakeNeutron{snap: snapshot("n1")}
			cfg := Config{Map: neutron.MapConfig{Site: "a11"}, Policy: plan.DefaultPolicy(owner), Notified: true}
			s := newTestSyncer(cfg, src, store)
			if _, err := s.Sync(ctx, Request{Sweep: true}); err != nil {
				t.Fatal(err)
			}
			st, ok := s.SaveNeutron()
			if !ok {
				t.Fatal("nothing to save after a sweep")
			}
			st.Networks = tc.pending

			// n2 comes while the agent is down.
			src.snap = snapshot("n1", "n2")
			resumed := newTestSyncer(cfg, src, store)
			proof := make(chan Proof, 1)
			resumed.ResumeNeutron(st, proof)
			proof <- tc.proof
			req := Request{Full: true}
			if tc.req != nil {
				req = *tc.req
			}
			full := src.full
			out, err := resumed.Sync(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if got := src.full > full; got != tc.whole || out.Whole["neutron"] != tc.whole {
				t.Errorf("Neutron read whole: %v (outcome %v), want %v", got, out.Whole["neutron"], tc.whole)
			}
			want := []string{"ip_address a11/192.168.1.10", "ip_address a11/192.168.1.11", "ip_address a11/192.168.2.10",
				"prefix a11/192.168.1.0/24", "prefix a11/192.168.2.0/24", "vlan a11-12-network/150", "vlan a11-12-network/151"}
			if got := keys(t, store, owner); !slices.Equal(got, want) {
				t.Errorf("target after the first sync: %q, want %q", got, want)
			}
			// The proof is spent: later syncs do not wait for another
			// (the channel is empty: one that waited would time out), and
			// follow Neutron on.
			full = src.full
			if out, err := resumed.Sync(ctx, Request{Full: true}); err != nil || out.Whole["neutron"] || src.full != full {
				t.Errorf("a later sync: %v, read Neutron whole %v", err, out.Whole["neutron"])
			}
		})
	}
}
