package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

const (
	// dialTimeout bounds the TCP connect and the AMQP handshake.
	dialTimeout = 15 * time.Second
	// heartbeat makes a silently dead broker or network noticed within a
	// few intervals instead of at the next TCP timeout.
	heartbeat = 10 * time.Second
	// closeGrace bounds two waits that normally end at once: for the reason
	// a delivery stream ended (the library sends it first) and for the
	// broker to confirm a close.
	closeGrace = 5 * time.Second
)

// session is one connection: dial, declare, consume until the connection
// or ctx ends. connected reports whether consuming had started.
func (c *Consumer) session(ctx context.Context, log *slog.Logger, out chan<- Event) (connected bool, err error) {
	// Only the first session can follow on from a clean stop; whatever
	// ends it before the verdict breaks the chain.
	var sc *scan
	if r := c.resume; r != nil {
		c.resume = nil
		defer func() {
			if sc != nil {
				reason := "the first session ended before it read the queue's backlog"
				if err != nil {
					reason += ": " + err.Error()
				}
				r.report(Verdict{Reason: reason})
			}
		}()
		sc = newScan(r, false, 0)
	}
	defer func() {
		if err != nil {
			c.live.Store(false)
		}
	}()
	conn, err := c.dial(ctx)
	if err != nil {
		return false, fmt.Errorf("connect to %s: %w", c.cfg.RedactedURL(), err)
	}
	defer func() {
		// Bounded, so that shutdown does not hang on a broker that went
		// silent without closing the socket.
		_ = conn.CloseDeadline(time.Now().Add(closeGrace))
	}()
	connClosed := conn.NotifyClose(make(chan *amqp.Error, 1))

	ch, backlog, err := c.declare(conn)
	if err != nil {
		return false, err
	}
	w, err := witnessed(conn, c.cfg.Queue)
	if err != nil {
		return false, err
	}
	if sc != nil {
		sc.witnessed, sc.backlog = w, backlog
	}
	if w {
		if err := dropWitness(conn, c.cfg.Queue); err != nil {
			return false, err
		}
	}
	chClosed := ch.NotifyClose(make(chan *amqp.Error, 1))
	cancelled := ch.NotifyCancel(make(chan string, 1))
	deliveries, err := ch.ConsumeWithContext(ctx, c.cfg.Queue, "", false, false, false, false, nil)
	if err != nil {
		return false, fmt.Errorf("consume queue %q: %w", c.cfg.Queue, err)
	}
	done := make(chan struct{})
	defer close(done)
	lost := watch(done, connClosed, chClosed, cancelled)

	c.state(true, nil)
	c.live.Store(true)
	log.Info("consuming neutron notifications", "backlog", backlog)
	if sc == nil || sc.done() {
		if !c.decide(log, &sc) && !c.resync(ctx, out, lost.dead) {
			return true, lost.errOrNil()
		}
	}
	for {
		select {
		case <-ctx.Done():
			return true, nil
		case <-lost.dead:
			return true, lost.err
		case d, ok := <-deliveries:
			if !ok {
				return true, c.streamEnded(ctx, lost)
			}
			m, evs, handled := c.handle(ctx, log, d, out, lost.dead)
			if sc == nil || !handled {
				continue
			}
			sc.see(m, evs)
			if sc.done() && !c.decide(log, &sc) && !c.resync(ctx, out, lost.dead) {
				return true, lost.errOrNil()
			}
		}
	}
}

// decide gives the first session's verdict, if it is scanning, and says
// whether the queue was kept since the agent's clean stop: if not, or
// if there was nothing to decide, the session starts over with a Resync.
func (c *Consumer) decide(log *slog.Logger, sc **scan) bool {
	if *sc == nil {
		return false
	}
	v := (*sc).verdict()
	(*sc).r.report(v)
	*sc = nil
	if v.Kept {
		log.Info("queue kept since the agent stopped: following on from the saved Neutron", "networks", len(v.Networks))
	} else {
		log.Info("queue not kept since the agent stopped: Neutron is read whole", "reason", v.Reason)
	}
	return v.Kept
}

// resync sends the Resync event; false if the session ended first.
func (c *Consumer) resync(ctx context.Context, out chan<- Event, dead <-chan struct{}) bool {
	select {
	case out <- Event{Type: Resync, Resource: Resync, Timestamp: c.clock.Now().UTC()}:
		return true
	case <-ctx.Done():
	case <-dead:
	}
	return false
}

// streamEnded waits for the reason the delivery channel was closed.
func (c *Consumer) streamEnded(ctx context.Context, lost *loss) error {
	t := c.clock.NewTimer(closeGrace)
	defer t.Stop()
	select {
	case <-lost.dead:
		return lost.err
	case <-ctx.Done():
		return nil
	case <-t.C():
		return errors.New("delivery stream closed without a reason")
	}
}

// dial connects with ctx honoured during the TCP connect and the handshake.
func (c *Consumer) dial(ctx context.Context) (*amqp.Connection, error) {
	props := amqp.NewConnectionProperties()
	props.SetClientConnectionName("ipsync events " + c.cfg.Queue)
	var (
		raw  net.Conn
		stop = func() bool { return false }
	)
	conn, err := amqp.DialConfig(c.cfg.URL, amqp.Config{
		Heartbeat:  heartbeat,
		Properties: props,
		// Called synchronously by DialConfig, so raw and stop need no lock.
		Dial: func(network, addr string) (net.Conn, error) {
			d := net.Dialer{Timeout: dialTimeout}
			nc, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			// The library clears the deadline once the handshake is done.
			if err := nc.SetDeadline(time.Now().Add(dialTimeout)); err != nil {
				nc.Close()
				return nil, err
			}
			raw = nc
			stop = context.AfterFunc(ctx, func() { nc.Close() })
			return nc, nil
		},
	})
	stop()
	if err != nil {
		// A refused handshake leaves the socket open.
		if raw != nil {
			raw.Close()
		}
		return nil, err
	}
	return conn, nil
}

// declare prepares the exchange, queue and binding and returns the channel
// to consume on with the queue's current backlog. The exchange is checked
// passively first so that one made by Neutron is used whatever its flags;
// declaring it with other flags would fail and, worse, a differently flagged
// exchange made by us would make Neutron's own declaration fail.
func (c *Consumer) declare(conn *amqp.Connection) (*amqp.Channel, int, error) {
	ch, err := conn.Channel()
	if err != nil {
		return nil, 0, fmt.Errorf("open channel: %w", err)
	}
	const kind = "topic"
	if err := ch.ExchangeDeclarePassive(c.cfg.Exchange, kind, c.cfg.ExchangeDurable, false, false, false, nil); err != nil {
		var ae *amqp.Error
		if !errors.As(err, &ae) || ae.Code != amqp.NotFound {
			return nil, 0, fmt.Errorf("check exchange %q: %w", c.cfg.Exchange, err)
		}
		// A failed passive declare closes the channel.
		if ch, err = conn.Channel(); err != nil {
			return nil, 0, fmt.Errorf("open channel: %w", err)
		}
		if err := ch.ExchangeDeclare(c.cfg.Exchange, kind, c.cfg.ExchangeDurable, false, false, false, nil); err != nil {
			return nil, 0, fmt.Errorf("declare exchange %q: %w", c.cfg.Exchange, err)
		}
	}
	durable := c.cfg.KeepFor > 0
	q, err := ch.QueueDeclare(c.cfg.Queue, durable, !durable, false, false, amqp.Table(c.cfg.queueArgs()))
	if err != nil {
		return nil, 0, fmt.Errorf("declare queue %q: %w", c.cfg.Queue, err)
	}
	if err := ch.QueueBind(c.cfg.Queue, c.cfg.RoutingKey(), c.cfg.Exchange, false, nil); err != nil {
		return nil, 0, fmt.Errorf("bind queue %q to %q with %q: %w", c.cfg.Queue, c.cfg.Exchange, c.cfg.RoutingKey(), err)
	}
	if err := ch.Qos(c.cfg.Prefetch, 0, false); err != nil {
		return nil, 0, fmt.Errorf("set prefetch: %w", err)
	}
	return ch, q.Messages, nil
}

// loss is closed once the connection, the channel or the consumer is gone;
// err says why.
type loss struct {
	dead chan struct{}
	err  error
}

// errOrNil is why the connection died, nil if it did not.
func (l *loss) errOrNil() error {
	select {
	case <-l.dead:
		return l.err
	default:
		return nil
	}
}

func watch(done <-chan struct{}, connClosed, chClosed <-chan *amqp.Error, cancelled <-chan string) *loss {
	l := &loss{dead: make(chan struct{})}
	go func() {
		select {
		case <-done:
			return
		case e, ok := <-connClosed:
			l.err = closeReason("connection", e, ok)
		case e, ok := <-chClosed:
			l.err = closeReason("channel", e, ok)
		case tag := <-cancelled:
			l.err = fmt.Errorf("consumer %s cancelled by the broker (queue deleted?)", tag)
		}
		close(l.dead)
	}()
	return l
}

func closeReason(what string, e *amqp.Error, ok bool) error {
	if !ok || e == nil {
		return fmt.Errorf("%s closed", what)
	}
	return fmt.Errorf("%s closed: %w", what, e)
}
