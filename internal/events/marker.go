package events

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// A stopped agent's queue keeps every notification sent while it is down,
// unless the broker restarted (Neutron's transient exchange took the
// queue's binding with it), somebody else consumed from the queue, or the
// queue dropped messages (x-max-length, x-message-ttl) or was deleted.
// An agent that stops cleanly leaves two things that let its next start
// tell whether none of that happened, and so follow on from the Neutron it
// saved instead of reading it whole:
//
//   - a marker message at the tail of its queue, naming a nonce kept in
//     the saved state and how many messages were ahead of it;
//   - a witness: a transient exchange, gone when the broker restarts, and
//     deleted by every consumer of the queue when it starts consuming.
//
// The next start trusts the queue only if the witness is there (no broker
// restart, nobody consumed since a clean stop), its own marker comes no
// earlier than it went in (nothing ahead of it was dropped), and no other
// agent's marker comes after it (nobody else consumed and stopped since).

// ErrNotLive is Mark's answer when the consumer was not consuming when it
// stopped (a lost connection, never started): what the
// queue lost meanwhile cannot be vouched for.
var ErrNotLive = errors.New("the consumer was not consuming when it stopped")

// Marker is what a clean stop left in the queue.
type Marker struct {
	Nonce string `json:"nonce"`
	// Ahead is how many messages were in the queue before the marker: one
	// that arrives earlier means messages before it were dropped.
	Ahead int `json:"ahead"`
}

// markerKey is the one key of a marker's JSON body; no oslo message has it.
const markerKey = "ipsync.marker"

func markerBody(m Marker) []byte {
	b, _ := json.Marshal(map[string]Marker{markerKey: m})
	return b
}

// parseMarker reports whether body is a marker, and which.
func parseMarker(body []byte) (Marker, bool) {
	var v map[string]json.RawMessage
	if json.Unmarshal(body, &v) != nil || len(v) != 1 || v[markerKey] == nil {
		return Marker{}, false
	}
	var m Marker
	if json.Unmarshal(v[markerKey], &m) != nil || m.Nonce == "" {
		return Marker{}, false
	}
	return m, true
}

// witnessName is the witness exchange of a queue.
func witnessName(queue string) string { return queue + ".ipsync-witness" }

// Mark leaves this consumer's marker and witness for its next start. Call
// it after consuming stopped and before the state naming the marker is
// saved: the marker must come after every message this agent consumed.
func (c *Consumer) Mark(ctx context.Context) (Marker, error) {
	if !c.live.Load() {
		return Marker{}, ErrNotLive
	}
	ctx, cancel := context.WithTimeout(ctx, closeGrace+dialTimeout)
	defer cancel()
	conn, err := c.dial(ctx)
	if err != nil {
		return Marker{}, fmt.Errorf("leave a marker in queue %q: connect: %w", c.cfg.Queue, err)
	}
	defer func() { _ = conn.CloseDeadline(time.Now().Add(closeGrace)) }()
	ch, err := conn.Channel()
	if err != nil {
		return Marker{}, fmt.Errorf("leave a marker in queue %q: %w", c.cfg.Queue, err)
	}
	q, err := ch.QueueDeclarePassive(c.cfg.Queue, true, false, false, false, nil)
	if err != nil {
		return Marker{}, fmt.Errorf("leave a marker in queue %q: %w", c.cfg.Queue, err)
	}
	if err := ch.Confirm(false); err != nil {
		return Marker{}, fmt.Errorf("leave a marker in queue %q: confirms: %w", c.cfg.Queue, err)
	}
	confirmed := ch.NotifyPublish(make(chan amqp.Confirmation, 1))
	returned := ch.NotifyReturn(make(chan amqp.Return, 1))
	m := Marker{Nonce: rand.Text(), Ahead: q.Messages}
	// Through the default exchange, which routes by queue name: the
	// marker reaches this queue and no other.
	err = ch.PublishWithContext(ctx, "", c.cfg.Queue, true, false, amqp.Publishing{
		ContentType: "application/json", DeliveryMode: amqp.Persistent, Timestamp: c.clock.Now().UTC(), Body: markerBody(m)})
	if err != nil {
		return Marker{}, fmt.Errorf("leave a marker in queue %q: %w", c.cfg.Queue, err)
	}
	select {
	case r := <-returned:
		return Marker{}, fmt.Errorf("leave a marker in queue %q: returned: %s", c.cfg.Queue, r.ReplyText)
	case conf := <-confirmed:
		if !conf.Ack {
			return Marker{}, fmt.Errorf("leave a marker in queue %q: the broker refused it", c.cfg.Queue)
		}
	case <-ctx.Done():
		return Marker{}, fmt.Errorf("leave a marker in queue %q: no confirm: %w", c.cfg.Queue, ctx.Err())
	}
	if err := ch.ExchangeDeclare(witnessName(c.cfg.Queue), "fanout", false, false, false, false, nil); err != nil {
		return Marker{}, fmt.Errorf("leave a marker in queue %q: witness: %w", c.cfg.Queue, err)
	}
	return m, nil
}

// Verdict is what the first start after a clean stop learnt of its queue.
type Verdict struct {
	// Kept says every notification since the marker's stop is in the
	// queue: Neutron as saved, with the networks named, is Neutron now.
	Kept bool
	// Reason says why not.
	Reason string
	// Networks are those the messages before the verdict named, and
	// Unattributed says one named none; both are meaningful only if Kept.
	Networks     []string
	Unattributed bool
}

// WithResume makes the consumer's first session check the queue against
// m, the marker of the stop its state was saved at, and report the
// verdict to f once, from Run's goroutine (f must not block). A kept
// queue is followed on from without the Resync event every other session
// starts with; a broken one starts with it.
func WithResume(m Marker, f func(Verdict)) Option {
	return func(c *Consumer) { c.resume = &resume{want: m, report: f} }
}

type resume struct {
	want   Marker
	report func(Verdict)
}

// scan follows the messages that were in the queue when the first session
// started, up to the verdict.
type scan struct {
	r         *resume
	witnessed bool
	backlog   int // messages to look at
	seen      int
	at        int // position of our marker, -1 until seen
	foreign   bool
	networks  map[string]bool
	unattr    bool
}

func newScan(r *resume, witnessed bool, backlog int) *scan {
	return &scan{r: r, witnessed: witnessed, backlog: backlog, at: -1, networks: map[string]bool{}}
}

// done says the verdict can be given: every message of the backlog seen.
func (s *scan) done() bool { return s.seen >= s.backlog }

// see takes one message of the backlog: a marker, or a notification's
// events.
func (s *scan) see(m *Marker, evs []Event) {
	switch {
	case m != nil && m.Nonce == s.r.want.Nonce:
		s.at = s.seen
	case m != nil && s.at >= 0:
		s.foreign = true
	}
	for _, ev := range evs {
		// A segment range's change is not in the saved Neutron's
		// networks either: only a whole read has the ranges.
		if !ev.attributed() || ev.Resource == NetworkSegmentRange {
			s.unattr = true
		}
		for _, id := range ev.NetworkIDs {
			s.networks[id] = true
		}
	}
	s.seen++
}

func (s *scan) verdict() Verdict {
	var reason string
	switch {
	case !s.witnessed:
		reason = "the witness exchange is gone: RabbitMQ restarted, or another consumer took from the queue, since the agent stopped"
	case s.at < 0:
		reason = "the marker the agent left at its stop is not in the queue: the queue was consumed, emptied or made anew"
	case s.at < s.r.want.Ahead:
		reason = fmt.Sprintf("%d of the %d messages ahead of the marker are gone: the queue dropped messages (x-max-length, x-message-ttl)", s.r.want.Ahead-s.at, s.r.want.Ahead)
	case s.foreign:
		reason = "another agent stopped with a marker after this one's: it consumed from the queue meanwhile"
	default:
		v := Verdict{Kept: true, Unattributed: s.unattr}
		for id := range s.networks {
			v.Networks = append(v.Networks, id)
		}
		return v
	}
	return Verdict{Reason: reason}
}

// witnessed reports whether the queue's witness exchange exists, on a
// channel of its own: a failed passive declare closes it.
func witnessed(conn *amqp.Connection, queue string) (bool, error) {
	ch, err := conn.Channel()
	if err != nil {
		return false, fmt.Errorf("open channel: %w", err)
	}
	err = ch.ExchangeDeclarePassive(witnessName(queue), "fanout", false, false, false, false, nil)
	if ae, ok := errors.AsType[*amqp.Error](err); ok && ae.Code == amqp.NotFound {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check witness exchange: %w", err)
	}
	_ = ch.Close()
	return true, nil
}

// dropWitness deletes the queue's witness: this consumer is about to take
// from the queue, so no earlier stop's marker may be trusted after it.
func dropWitness(conn *amqp.Connection, queue string) error {
	ch, err := conn.Channel()
	if err != nil {
		return fmt.Errorf("open channel: %w", err)
	}
	defer ch.Close()
	if err := ch.ExchangeDelete(witnessName(queue), false, false); err != nil {
		return fmt.Errorf("delete witness exchange: %w", err)
	}
	return nil
}
