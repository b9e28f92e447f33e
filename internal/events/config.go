package events

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Config is where and how the consumer reads Neutron's notifications.
type Config struct {
	// URL is amqp://user:pass@host:5672/vhost or amqps://...; the caller
	// reads the password from env or a file. It is never logged.
	URL string
	// Exchange is oslo's control exchange of Neutron, "neutron".
	Exchange string
	// Topic is the binding key: oslo's notification topic with its priority
	// ("notifications.info"). A bare topic ("notifications") gets ".info"
	// appended because Neutron's resource notifications are all INFO.
	// Topic-exchange wildcards ("notifications.*") are used as they are.
	Topic string
	// Queue is the queue this agent alone consumes, bound to the exchange:
	// every agent of a site gets every notification in a queue of its own,
	// so a standby keeps its view of Neutron as current as the holder's.
	Queue string
	// KeepFor, when set, makes the queue durable, so that what Neutron
	// sends while the agent is down waits for the agent's next start, and
	// lets RabbitMQ delete it once it has been unused that long
	// (x-expires): an agent that is gone for good leaves nothing behind.
	// Zero is for an agent that keeps no state to follow on from: its
	// queue is deleted with its last consumer (auto-delete).
	KeepFor time.Duration
	// Prefetch is how many unacknowledged messages RabbitMQ may push.
	Prefetch int
	// ReconnectMin and ReconnectMax bound the exponential reconnect backoff.
	ReconnectMin, ReconnectMax time.Duration
	// ExchangeDurable is used only when the exchange does not exist yet and
	// the consumer has to create it; an existing one is used as it is. It
	// must match Neutron's oslo setting (durable when amqp_durable_queues or
	// rabbit_quorum_queue is on, otherwise not — the oslo default), or
	// Neutron's own declaration would be refused.
	ExchangeDurable bool
	// MessageTTL, when set, lets RabbitMQ drop queued notifications older
	// than this (x-message-ttl): after a long outage the agent's full
	// reconcile covers them anyway.
	MessageTTL time.Duration
	// MaxLength, when set, caps the queue (x-max-length, oldest dropped
	// first) so an agent that is gone for good cannot fill the broker.
	MaxLength int
}

// Defaults used by WithDefaults.
const (
	DefaultExchange     = "neutron"
	DefaultTopic        = "notifications.info"
	DefaultPrefetch     = 50
	DefaultReconnectMin = time.Second
	DefaultReconnectMax = time.Minute
)

// WithDefaults fills the zero fields that have a sensible default. URL and
// Queue have none.
func (c Config) WithDefaults() Config {
	if c.Exchange == "" {
		c.Exchange = DefaultExchange
	}
	if c.Topic == "" {
		c.Topic = DefaultTopic
	}
	if c.Prefetch == 0 {
		c.Prefetch = DefaultPrefetch
	}
	if c.ReconnectMin == 0 {
		c.ReconnectMin = DefaultReconnectMin
	}
	if c.ReconnectMax == 0 {
		c.ReconnectMax = max(DefaultReconnectMax, c.ReconnectMin)
	}
	return c
}

// Validate reports every invalid field at once. Messages never contain the
// URL's password.
func (c Config) Validate() error {
	var errs []error
	if err := checkURL(c.URL); err != nil {
		errs = append(errs, fmt.Errorf("url: %w", err))
	}
	if c.Exchange == "" {
		errs = append(errs, errors.New("exchange: empty"))
	}
	if c.Topic == "" {
		errs = append(errs, errors.New("topic: empty"))
	}
	if c.Queue == "" {
		errs = append(errs, errors.New("queue: empty"))
	}
	if strings.HasPrefix(c.Queue, "amq.") {
		errs = append(errs, fmt.Errorf("queue: %q uses the reserved prefix \"amq.\"", c.Queue))
	}
	if c.Prefetch < 1 || c.Prefetch > 65535 {
		errs = append(errs, fmt.Errorf("prefetch: %d not in 1..65535", c.Prefetch))
	}
	if c.ReconnectMin <= 0 {
		errs = append(errs, fmt.Errorf("reconnect_min: %v must be positive", c.ReconnectMin))
	}
	if c.ReconnectMax < c.ReconnectMin {
		errs = append(errs, fmt.Errorf("reconnect_max: %v below reconnect_min %v", c.ReconnectMax, c.ReconnectMin))
	}
	if c.MessageTTL < 0 || (c.MessageTTL > 0 && c.MessageTTL < time.Millisecond) {
		errs = append(errs, fmt.Errorf("message_ttl: %v must be 0 or at least 1ms", c.MessageTTL))
	}
	if c.MaxLength < 0 {
		errs = append(errs, fmt.Errorf("max_length: %d must not be negative", c.MaxLength))
	}
	if c.KeepFor < 0 || (c.KeepFor > 0 && c.KeepFor < time.Millisecond) {
		errs = append(errs, fmt.Errorf("keep_for: %v must be 0 or at least 1ms", c.KeepFor))
	}
	return errors.Join(errs...)
}

// checkURL does not wrap url.Parse's error: it quotes the whole URL,
// password included.
func checkURL(raw string) error {
	if raw == "" {
		return errors.New("empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("not a valid URL")
	}
	if u.Scheme != "amqp" && u.Scheme != "amqps" {
		return fmt.Errorf("scheme %q, want amqp or amqps", u.Scheme)
	}
	if u.Host == "" {
		return errors.New("no host")
	}
	return nil
}

// RoutingKey is the key the queue is bound with.
func (c Config) RoutingKey() string {
	t := c.Topic
	if strings.ContainsAny(t, "*#") {
		return t
	}
	i := strings.LastIndexByte(t, '.')
	if i >= 0 && isPriority(t[i+1:]) {
		return t
	}
	return t + ".info"
}

// isPriority reports whether s is one of oslo's notification priorities,
// which oslo lower-cases into the routing key.
func isPriority(s string) bool {
	switch s {
	case "audit", "debug", "info", "warn", "error", "critical", "sample":
		return true
	}
	return false
}

// RedactedURL is the URL as it may appear in logs and status pages.
func (c Config) RedactedURL() string {
	u, err := url.Parse(c.URL)
	if err != nil {
		return "(invalid url)"
	}
	return u.Redacted()
}

// queueArgs are the optional x-arguments of the queue. RabbitMQ refuses to
// redeclare a queue with different arguments, so they are only sent when set.
func (c Config) queueArgs() map[string]any {
	args := map[string]any{}
	if c.MessageTTL > 0 {
		args["x-message-ttl"] = c.MessageTTL.Milliseconds()
	}
	if c.MaxLength > 0 {
		args["x-max-length"] = int64(c.MaxLength)
	}
	if c.KeepFor > 0 {
		args["x-expires"] = c.KeepFor.Milliseconds()
	}
	if len(args) == 0 {
		return nil
	}
	return args
}
