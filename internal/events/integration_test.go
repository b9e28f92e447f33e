package events

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// These tests need a RabbitMQ; scripts/rabbitmq-up.sh starts a private one:
//
//	IPSYNC_RABBITMQ_URL=$(scripts/rabbitmq-up.sh start) \
//	IPSYNC_RABBITMQ_SCRIPT=$PWD/scripts/rabbitmq-up.sh \
//	go test -run Integration -v ./internal/events/
//
// IPSYNC_RABBITMQ_SCRIPT enables the broker restart test; it is called with
// "restart" and must leave the broker reachable at the same URL.

// waitLimit only keeps a broken test from hanging; nothing asserts on time.
const waitLimit = 2 * time.Minute

func brokerURL(t *testing.T) string {
	t.Helper()
	url := os.Getenv("IPSYNC_RABBITMQ_URL")
	if url == "" {
		t.Skip("IPSYNC_RABBITMQ_URL is not set; start a broker with scripts/rabbitmq-up.sh start and export the URL it prints")
	}
	return url
}

// testConfig gives each test its own queue, deleted afterwards, on the
// shared "neutron" exchange as Neutron itself uses it.
func testConfig(t *testing.T, url, name string) Config {
	t.Helper()
	cfg := Config{
		URL:          url,
		Queue:        "ipsync-test-" + name + "-" + rand.Text()[:8],
		ReconnectMin: 200 * time.Millisecond,
		ReconnectMax: 2 * time.Second,
		KeepFor:      time.Hour,
	}.WithDefaults()
	t.Cleanup(func() { deleteQueue(t, url, cfg.Queue) })
	return cfg
}

func deleteQueue(t *testing.T, url, queue string) {
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Logf("cleanup: %v", err)
		return
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Logf("cleanup: %v", err)
		return
	}
	if _, err := ch.QueueDelete(queue, false, false, false); err != nil {
		t.Logf("cleanup: delete queue %s: %v", queue, err)
	}
}

// publisher sends notifications the way oslo.messaging's rabbit driver does:
// non-durable topic exchange declared by the sender, JSON body in the 2.0
// envelope, persistent delivery.
type publisher struct {
	t   *testing.T
	url string
	seq int
	// topic is the routing key, DefaultTopic if empty.
	topic string
}

func (p *publisher) publish(eventType string, payload any) string {
	p.t.Helper()
	p.seq++
	id := fmt.Sprintf("%08x-0000-4000-8000-%012d", p.seq, p.seq)
	inner, err := json.Marshal(map[string]any{
		"message_id":          id,
		"publisher_id":        "network.ctl-test",
		"event_type":          eventType,
		"priority":            "INFO",
		"payload":             payload,
		"timestamp":           time.Now().UTC().Format("2006-01-02 15:04:05.000000"),
		"_unique_id":          rand.Text(),
		"_context_request_id": "req-" + id,
		"_context_is_admin":   true,
	})
	if err != nil {
		p.t.Fatal(err)
	}
	body, err := json.Marshal(map[string]string{"oslo.version": "2.0", "oslo.message": string(inner)})
	if err != nil {
		p.t.Fatal(err)
	}
	p.raw(body)
	return id
}

func (p *publisher) raw(body []byte) {
	p.t.Helper()
	conn, err := amqp.Dial(p.url)
	if err != nil {
		p.t.Fatalf("publisher: %v", err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		p.t.Fatalf("publisher: %v", err)
	}
	if err := ch.ExchangeDeclare(DefaultExchange, "topic", false, false, false, false, nil); err != nil {
		p.t.Fatalf("publisher: declare exchange: %v", err)
	}
	if err := ch.Confirm(false); err != nil {
		p.t.Fatalf("publisher: confirm mode: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	topic := p.topic
	if topic == "" {
		topic = DefaultTopic
	}
	conf, err := ch.PublishWithDeferredConfirmWithContext(ctx, DefaultExchange, topic, false, false, amqp.Publishing{
		ContentType:     "application/json",
		ContentEncoding: "utf-8",
		DeliveryMode:    amqp.Persistent,
		Body:            body,
	})
	if err != nil {
		p.t.Fatalf("publisher: %v", err)
	}
	if ok, err := conf.WaitContext(ctx); !ok || err != nil {
		p.t.Fatalf("publisher: not confirmed: %v", err)
	}
}

// running is a consumer under test with the states its hook saw.
type running struct {
	t      *testing.T
	c      *Consumer
	out    chan Event
	cancel context.CancelFunc
	done   chan error

	mu     sync.Mutex
	states []timedState
	change chan struct{}
}

type timedState struct {
	state
	at time.Time
}

func startConsumer(t *testing.T, cfg Config, opts ...Option) *running {
	t.Helper()
	r := &running{t: t, out: make(chan Event), done: make(chan error, 1), change: make(chan struct{}, 1)}
	c := NewConsumer(cfg, discard(), append(opts, WithStateHook(func(connected bool, err error) {
		r.mu.Lock()
		r.states = append(r.states, timedState{state{connected, err}, time.Now()})
		r.mu.Unlock()
		select {
		case r.change <- struct{}{}:
		default:
		}
	}))...)
	r.c = c
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.done <- c.Run(ctx, r.out) }()
	t.Cleanup(r.stop)
	return r
}

func (r *running) stop() {
	r.cancel()
	select {
	case err := <-r.done:
		if err != nil {
			r.t.Errorf("Run() = %v, want nil", err)
		}
		r.done <- err // stop may run twice: explicitly and from Cleanup
	case <-time.After(waitLimit):
		r.t.Errorf("Run did not return after cancel")
	}
}

// waitState blocks until the hook has reported a state for which match holds
// after index from, and returns its index.
func (r *running) waitState(from int, match func(state) bool) (int, timedState) {
	r.t.Helper()
	deadline := time.After(waitLimit)
	for {
		r.mu.Lock()
		for i := from; i < len(r.states); i++ {
			if match(r.states[i].state) {
				s := r.states[i]
				r.mu.Unlock()
				return i, s
			}
		}
		r.mu.Unlock()
		select {
		case <-r.change:
		case <-deadline:
			r.t.Fatalf("hook never reported the awaited state; saw %+v", r.snapshot())
		}
	}
}

func (r *running) snapshot() []timedState {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]timedState(nil), r.states...)
}

func connected(s state) bool    { return s.connected }
func disconnected(s state) bool { return !s.connected && s.err != nil }

// next returns the next event about one of the test's own resources,
// skipping events other tests published to the shared exchange.
func (r *running) next(ours map[string]bool) Event {
	r.t.Helper()
	deadline := time.After(waitLimit)
	for {
		select {
		case ev := <-r.out:
			for _, id := range ev.IDs {
				if ours[id] {
					return ev
				}
			}
		case <-deadline:
			r.t.Fatal("no event")
		}
	}
}

// nextResync waits for the event the consumer sends when it starts
// consuming; no notification of the test's comes before it.
func (r *running) nextResync() {
	r.t.Helper()
	deadline := time.After(waitLimit)
	for {
		select {
		case ev := <-r.out:
			if ev.Type == Resync {
				if ev.attributed() {
					r.t.Errorf("resync event %+v names networks; want none, so that Neutron is read whole", ev)
				}
				return
			}
		case <-deadline:
			r.t.Fatal("no resync event after the consumer started consuming")
		}
	}
}

type idSet map[string]bool

func newIDs(names ...string) ([]string, idSet) {
	suffix := rand.Text()[:10]
	ids, set := make([]string, len(names)), idSet{}
	for i, n := range names {
		ids[i] = n + "-" + suffix
		set[ids[i]] = true
	}
	return ids, set
}

func TestIntegrationDeliversNotifications(t *testing.T) {
	url := brokerURL(t)
	cfg := testConfig(t, url, "deliver")
	r := startConsumer(t, cfg)
	r.waitState(0, connected)

	ids, ours := newIDs("net", "port1", "port2", "range")
	netID, port1, port2, rangeID := ids[0], ids[1], ids[2], ids[3]
	p := &publisher{t: t, url: url}
	wantMsg := p.publish("network.create.end", map[string]any{"network": map[string]any{"id": netID, "provider:network_type": "vlan", "provider:segmentation_id": 2010}})
	p.publish("router.create.end", map[string]any{"router": map[string]any{"id": port1}})
	p.raw([]byte(`{"oslo.version": "2.0", "oslo.message": "{broken"}`))
	p.publish("port.create.end", map[string]any{"ports": []any{
		map[string]any{"id": port1, "network_id": netID}, map[string]any{"id": port2, "network_id": netID}}})
	p.publish("port.delete.end", map[string]any{"port_id": port2})
	p.publish("network_segment_range.update.end", map[string]any{"network_segment_range": map[string]any{"id": rangeID, "minimum": 2000, "maximum": 2999}})

	want := []Event{
		{Type: "network.create.end", Resource: Network, Action: Create, IDs: []string{netID}, NetworkIDs: []string{netID}},
		{Type: "port.create.end", Resource: Port, Action: Create, IDs: []string{port1, port2}, NetworkIDs: []string{netID}},
		{Type: "port.delete.end", Resource: Port, Action: Delete, IDs: []string{port2}},
		{Type: "network_segment_range.update.end", Resource: NetworkSegmentRange, Action: Update, IDs: []string{rangeID}},
	}
	for i, w := range want {
		got := r.next(ours)
		if i == 0 && got.MessageID != wantMsg {
			t.Errorf("MessageID = %q, want %q", got.MessageID, wantMsg)
		}
		if got.Timestamp.IsZero() {
			t.Errorf("event %d has no timestamp", i)
		}
		got.Timestamp, got.MessageID = time.Time{}, ""
		if !reflect.DeepEqual(got, w) {
			t.Errorf("event %d = %+v, want %+v", i, got, w)
		}
	}
}

func TestIntegrationKeepsEventsWhileAgentIsDown(t *testing.T) {
	url := brokerURL(t)
	cfg := testConfig(t, url, "downtime")
	first := startConsumer(t, cfg)
	first.waitState(0, connected)
	first.stop()

	ids, ours := newIDs("net1", "net2", "net3")
	p := &publisher{t: t, url: url}
	for _, id := range ids {
		p.publish("network.update.end", map[string]any{"network": map[string]any{"id": id}})
	}

	second := startConsumer(t, cfg)
	for i, id := range ids {
		if got := second.next(ours); !reflect.DeepEqual(got.IDs, []string{id}) {
			t.Errorf("event %d after restart of the agent: IDs = %v, want [%s]", i, got.IDs, id)
		}
	}
}

func TestIntegrationReconnectsAfterBrokerRestart(t *testing.T) {
	url := brokerURL(t)
	script := os.Getenv("IPSYNC_RABBITMQ_SCRIPT")
	if script == "" {
		t.Skip("IPSYNC_RABBITMQ_SCRIPT is not set; point it at scripts/rabbitmq-up.sh to let this test restart the broker")
	}
	live := startConsumer(t, testConfig(t, url, "live"))
	live.waitState(0, connected)
	live.nextResync()

	// A second agent's queue exists but its agent is down across the
	// broker restart: what was queued for it must still be there.
	parkedCfg := testConfig(t, url, "parked")
	parked := startConsumer(t, parkedCfg)
	parked.waitState(0, connected)
	parked.stop()

	ids, ours := newIDs("before", "after")
	before, after := ids[0], ids[1]
	p := &publisher{t: t, url: url}
	p.publish("subnet.create.end", map[string]any{"subnet": map[string]any{"id": before, "network_id": "n-" + before}})
	if got := live.next(ours); got.IDs[0] != before {
		t.Fatalf("before restart: IDs = %v, want [%s]", got.IDs, before)
	}

	mark := len(live.snapshot())
	restartStart := time.Now()
	cmd := exec.Command(script, "restart")
	cmd.Stderr = os.Stderr
	urlOut, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s restart: %v", script, err)
	}
	restartTook := time.Since(restartStart)
	t.Logf("broker restart took %v (script printed %s)", restartTook.Round(time.Millisecond), strings.TrimSpace(string(urlOut)))

	downAt, down := live.waitState(mark, disconnected)
	upAt, up := live.waitState(downAt, connected)
	t.Logf("consumer saw %q; reconnected after %d failed attempts, %v after noticing, %v after the restart script returned",
		down.err, upAt-downAt, up.at.Sub(down.at).Round(time.Millisecond), up.at.Sub(restartStart.Add(restartTook)).Round(time.Millisecond))

	// What Neutron published while the queue was unbound reached no
	// queue: the consumer says so before anything else it consumes.
	live.nextResync()

	sentAt := time.Now()
	p.publish("segment.update.end", map[string]any{"segment": map[string]any{"id": after, "network_id": "n-" + after}})
	if got := live.next(ours); got.IDs[0] != after {
		t.Errorf("after restart: IDs = %v, want [%s]", got.IDs, after)
	}
	t.Logf("event published after the restart arrived in %v", time.Since(sentAt).Round(time.Millisecond))

	// Neutron's exchange is transient (oslo's default), so the restart
	// removed the parked queue's binding: it holds what was queued before,
	// and gets new events once its consumer has bound it again.
	resumed := startConsumer(t, parkedCfg)
	if got := resumed.next(ours); got.IDs[0] != before {
		t.Errorf("parked queue: IDs = %v, want [%s] queued before the restart", got.IDs, before)
	}
	resumed.waitState(0, connected)
	lateIDs, lateOurs := newIDs("late")
	p.publish("port.update.end", map[string]any{"port": map[string]any{"id": lateIDs[0], "network_id": "n1"}})
	if got := resumed.next(lateOurs); got.IDs[0] != lateIDs[0] {
		t.Errorf("parked queue after rebinding: IDs = %v, want %v", got.IDs, lateIDs)
	}
}
