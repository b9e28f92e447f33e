package events

import (
	"errors"
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"
)

// Every agent of a site consumes a queue of its own: the holder and the
// standby both get every notification, so the standby's view of Neutron
// is as current as the holder's when it takes the lease over.
func TestIntegrationEveryAgentGetsEveryNotification(t *testing.T) {
	url := brokerURL(t)
	holder := startConsumer(t, testConfig(t, url, "holder"))
	standby := startConsumer(t, testConfig(t, url, "standby"))
	holder.waitState(0, connected)
	standby.waitState(0, connected)

	ids, ours := newIDs("n1", "n2", "n3", "n4")
	p := &publisher{t: t, url: url}
	for _, id := range ids {
		p.publish("network.update.end", map[string]any{"network": map[string]any{"id": id}})
	}
	for name, r := range map[string]*running{"holder": holder, "standby": standby} {
		for _, want := range ids {
			if got := r.next(ours); len(got.NetworkIDs) != 1 || got.NetworkIDs[0] != want {
				t.Errorf("%s got %+v, want network %s", name, got, want)
			}
		}
	}
}

// An agent that keeps no state has nothing to follow on from at its next
// start: its queue goes with it instead of filling up for nobody.
func TestIntegrationUnkeptQueueGoesWithItsConsumer(t *testing.T) {
	url := brokerURL(t)
	cfg := testConfig(t, url, "unkept")
	cfg.KeepFor = 0
	r := startConsumer(t, cfg)
	r.waitState(0, connected)
	if !queueExists(t, url, cfg.Queue) {
		t.Fatalf("queue %s missing while consumed", cfg.Queue)
	}
	r.stop()
	if queueExists(t, url, cfg.Queue) {
		t.Errorf("queue %s left behind by a consumer that keeps no state", cfg.Queue)
	}
}

func queueExists(t *testing.T, url, queue string) bool {
	t.Helper()
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	_, err = ch.QueueDeclarePassive(queue, false, false, false, false, nil)
	if ae := (*amqp.Error)(nil); errors.As(err, &ae) && ae.Code == amqp.NotFound {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}
