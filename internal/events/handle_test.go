package events

import (
	"context"
	"io"
	"log/slog"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/ipsync/ipsync/internal/clock/clocktest"
)

// settlements records what the consumer told the broker about deliveries.
type settlements struct {
	mu  sync.Mutex
	log []string
}

func (s *settlements) record(what string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, what)
	return nil
}

func (s *settlements) Ack(tag uint64, multiple bool) error { return s.record("ack") }
func (s *settlements) Nack(tag uint64, multiple, requeue bool) error {
	if requeue {
		return s.record("nack-requeue")
	}
	return s.record("nack-drop")
}
func (s *settlements) Reject(tag uint64, requeue bool) error { return s.record("reject") }

func (s *settlements) got() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestHandleSettlesDeliveries(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	dead := make(chan struct{})
	close(dead)
	alive := make(chan struct{})

	tests := []struct {
		name    string
		file    string
		ctx     context.Context
		reader  bool // whether out has room
		dead    chan struct{}
		want    []string
		wantEvs int
	}{
		{"handed over then acked", "port-create.json", context.Background(), true, alive, []string{"ack"}, 1},
		{"malformed is acked, not redelivered", "malformed-inner.json", context.Background(), true, alive, []string{"ack"}, 0},
		{"unrelated is acked", "router-create.json", context.Background(), true, alive, []string{"ack"}, 0},
		{"shutdown while out is full requeues", "port-create.json", cancelled, false, alive, []string{"nack-requeue"}, 0},
		{"lost connection leaves it to the broker", "port-create.json", context.Background(), false, dead, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewConsumer(Config{}, discard(), WithClock(clocktest.New(clocktest.Start)))
			acks := &settlements{}
			out := make(chan Event, 1)
			if !tt.reader {
				out = make(chan Event)
			}
			d := amqp.Delivery{Acknowledger: acks, DeliveryTag: 7, Body: readFixture(t, tt.file)}
			c.handle(tt.ctx, discard(), d, out, tt.dead)
			if got := acks.got(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("settlements = %v, want %v", got, tt.want)
			}
			if got := len(out); got != tt.wantEvs {
				t.Errorf("events handed over = %d, want %d", got, tt.wantEvs)
			}
		})
	}
}

func TestHandleFillsMissingTimestamp(t *testing.T) {
	clock := clocktest.New(clocktest.Start)
	sent := time.Date(2025, 3, 14, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		delivered time.Time
		want      time.Time
	}{
		{"from the message properties", sent, sent},
		{"receive time", time.Time{}, clock.Now()},
	}
	for _, tt := range tests {
		c := NewConsumer(Config{}, discard(), WithClock(clock))
		out := make(chan Event, 1)
		d := amqp.Delivery{
			Acknowledger: &settlements{},
			Timestamp:    tt.delivered,
			Body:         []byte(`{"event_type": "network.delete.end", "payload": {"network_id": "n1"}}`),
		}
		c.handle(context.Background(), discard(), d, out, make(chan struct{}))
		if got := (<-out).Timestamp; !got.Equal(tt.want) {
			t.Errorf("%s: Timestamp = %v, want %v", tt.name, got, tt.want)
		}
	}
}
