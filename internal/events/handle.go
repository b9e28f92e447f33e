package events

import (
	"context"
	"log/slog"

	amqp "github.com/rabbitmq/amqp091-go"
)

// handle passes one delivery's events to out and settles it. A message is
// acknowledged only once out took all its events; if ctx ends first it is
// returned to the queue, and if the connection dies the broker requeues it.
// It returns the marker the message was, or its events, and whether it
// was taken (acknowledged) rather than left to the queue.
func (c *Consumer) handle(ctx context.Context, log *slog.Logger, d amqp.Delivery, out chan<- Event, dead <-chan struct{}) (*Marker, []Event, bool) {
	if m, ok := parseMarker(d.Body); ok {
		// Left by an agent's clean stop; the first session after it reads
		// it, every other one passes it over.
		c.settle(log, d, d.Ack(false))
		return &m, nil, true
	}
	events, err := ParseNotification(d.Body)
	if err != nil {
		// Redelivering cannot make it parse; keeping it would block nothing
		// but grow the queue, so it is logged and dropped.
		log.Warn("dropping malformed notification", "err", err, "bytes", len(d.Body),
			"routing_key", d.RoutingKey, "message_id", d.MessageId, "redelivered", d.Redelivered)
		c.settle(log, d, d.Ack(false))
		return nil, nil, true
	}
	for _, ev := range events {
		if ev.Timestamp.IsZero() {
			ev.Timestamp = d.Timestamp
		}
		if ev.Timestamp.IsZero() {
			ev.Timestamp = c.clock.Now().UTC()
		}
		// A stopped consumer hands nothing more on, even where out would
		// still take it: the message stays in the queue for the next start.
		if ctx.Err() != nil {
			c.settle(log, d, d.Nack(false, true))
			return nil, nil, false
		}
		select {
		case out <- ev:
		case <-ctx.Done():
			c.settle(log, d, d.Nack(false, true))
			return nil, nil, false
		case <-dead:
			return nil, nil, false
		}
	}
	if len(events) > 0 {
		log.Debug("notification", "event_type", events[0].Type, "ids", events[0].IDs, "message_id", events[0].MessageID)
	}
	c.settle(log, d, d.Ack(false))
	return nil, events, true
}

// settle logs a failed ack or nack: the channel is gone, and the broker will
// redeliver the message to the next connection, so nothing is lost.
func (c *Consumer) settle(log *slog.Logger, d amqp.Delivery, err error) {
	if err != nil {
		log.Debug("settling delivery failed; it will be redelivered", "delivery_tag", d.DeliveryTag, "err", err)
	}
}
