package events

import (
	"reflect"
	"testing"
)

func stopped(s state) bool { return !s.connected && s.err == nil }

// Two agents of one site share the queue. Only the lease holder's gate is
// open, so every notification reaches it and none is taken (and
// acknowledged) by the standby; when the lease moves, the new holder gets
// everything that follows.
func TestIntegrationStandbyLeavesNotificationsToHolder(t *testing.T) {
	url := brokerURL(t)
	cfg := testConfig(t, url, "standby")
	holderGate, standbyGate := NewGate(), NewGate()
	holderGate.Set(true)
	holder := startGated(t, cfg, holderGate)
	standby := startGated(t, cfg, standbyGate)
	holder.waitState(0, connected)

	p := &publisher{t: t, url: url}
	deliverAll := func(to, other *running, names ...string) {
		t.Helper()
		ids, ours := newIDs(names...)
		for _, id := range ids {
			p.publish("network.update.end", map[string]any{"network": map[string]any{"id": id}})
		}
		for i, id := range ids {
			if got := to.next(ours); !reflect.DeepEqual(got.IDs, []string{id}) {
				t.Errorf("notification %d reached the holder as %v, want [%s]", i, got.IDs, id)
			}
		}
		select {
		case ev := <-other.out:
			t.Errorf("the standby received %+v", ev)
		default:
		}
	}
	deliverAll(holder, standby, "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8")

	// The lease moves.
	from := len(holder.snapshot())
	holderGate.Set(false)
	holder.waitState(from, stopped)
	standbyGate.Set(true)
	standby.waitState(0, connected)
	deliverAll(standby, holder, "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8")
}
