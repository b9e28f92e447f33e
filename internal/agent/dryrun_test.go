package agent_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/agent"
)

// TestDryRunTakesNoLease: a dry-run agent never asks for the lease, syncs
// as the holder would (its syncer plans and writes nothing), and an agent
// that writes, started beside it, takes the lease at once.
func TestDryRunTakesNoLease(t *testing.T) {
	clock := newFakeClock()
	table := newTable(clock)
	cfg := testConfig()
	cfg.DryRun = true
	dry := startConfig(t, clock, table.Lease("neutron:"+site, "dry"), cfg)
	c := dry.next()
	if c.trig == nil || c.trig.Standby || !c.trig.Sweep {
		t.Fatalf("dry run's first sync = %+v, want a sweep planned as the holder's", c.trig)
	}
	c.answer(agent.Outcome{}, nil)
	dry.send(agent.Trigger{NetworkIDs: []string{"net-1"}, Events: 1})
	if c := dry.next(); c.trig.Standby || !reflect.DeepEqual(c.trig.NetworkIDs, []string{"net-1"}) {
		t.Fatalf("dry run's sync of a notification = %+v, want net-1 planned", c.trig)
	} else {
		c.answer(agent.Outcome{}, nil)
	}
	clock.Advance(time.Minute) // past a renew interval: a lease would have been asked for
	if got := table.Holder("neutron:" + site); got != "" {
		t.Fatalf("lease holder = %q during a dry run, want none", got)
	}
	if got := dry.waitCondition(agent.CondLease, true); got.Message != "dry run: no lease taken, nothing written" {
		t.Errorf("lease condition = %q", got.Message)
	}

	writer := start(t, clock, table, "writer")
	c = writer.next()
	if c.trig.Standby {
		t.Fatalf("the writing agent's first sync = %+v: a standby's, behind a dry run", c.trig)
	}
	c.answer(agent.Outcome{}, nil)
	if got := table.Holder("neutron:" + site); got != "writer" {
		t.Errorf("lease holder = %q, want writer", got)
	}
	if err := dry.stop(); err != nil {
		t.Fatal(err)
	}
	if got := table.Holder("neutron:" + site); got != "writer" {
		t.Errorf("lease holder after the dry run stopped = %q, want writer", got)
	}
}
