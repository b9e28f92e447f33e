package events

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestConfigDefaults(t *testing.T) {
	got := Config{URL: "amqp://u:p@rmq:5672/", Queue: "ipsync-a11"}.WithDefaults()
	want := Config{
		URL: "amqp://u:p@rmq:5672/", Queue: "ipsync-a11",
		Exchange: "neutron", Topic: "notifications.info", Prefetch: 50,
		ReconnectMin: time.Second, ReconnectMax: time.Minute,
	}
	if got != want {
		t.Errorf("WithDefaults() = %+v, want %+v", got, want)
	}
	if err := got.Validate(); err != nil {
		t.Errorf("Validate() of defaults = %v, want nil", err)
	}
}

func TestConfigValidate(t *testing.T) {
	good := Config{URL: "amqps://ipsync:s3cret@rmq.example:5671/neutron", Queue: "ipsync-a11"}.WithDefaults()
	tests := []struct {
		name  string
		edit  func(*Config)
		field string
	}{
		{"no url", func(c *Config) { c.URL = "" }, "url"},
		{"http url", func(c *Config) { c.URL = "http://ipsync:s3cret@rmq/" }, "url"},
		{"unparsable url", func(c *Config) { c.URL = "amqp://ipsync:s3cret@rmq:port/" }, "url"},
		{"no host", func(c *Config) { c.URL = "amqp:///" }, "url"},
		{"no queue", func(c *Config) { c.Queue = "" }, "queue"},
		{"reserved queue", func(c *Config) { c.Queue = "amq.gen-1" }, "queue"},
		{"prefetch", func(c *Config) { c.Prefetch = -1 }, "prefetch"},
		{"no exchange", func(c *Config) { c.Exchange = "" }, "exchange"},
		{"no topic", func(c *Config) { c.Topic = "" }, "topic"},
		{"backoff order", func(c *Config) { c.ReconnectMax = c.ReconnectMin / 2 }, "reconnect_max"},
		{"backoff zero", func(c *Config) { c.ReconnectMin = 0 }, "reconnect_min"},
		{"ttl", func(c *Config) { c.MessageTTL = time.Microsecond }, "message_ttl"},
		{"max length", func(c *Config) { c.MaxLength = -5 }, "max_length"},
		{"keep for", func(c *Config) { c.KeepFor = -time.Hour }, "keep_for"},
	}
	for _, tt := range tests {
		c := good
		tt.edit(&c)
		err := c.Validate()
		if err == nil {
			t.Errorf("%s: Validate() = nil, want an error about %s", tt.name, tt.field)
			continue
		}
		if !strings.HasPrefix(err.Error(), tt.field+":") {
			t.Errorf("%s: Validate() = %q, want it to name %s", tt.name, err, tt.field)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: Validate() = %q leaks the password", tt.name, err)
		}
	}
}

func TestRoutingKey(t *testing.T) {
	tests := []struct{ topic, want string }{
		{"notifications.info", "notifications.info"},
		{"notifications", "notifications.info"},
		{"ipsync_notifications", "ipsync_notifications.info"},
		{"notifications.error", "notifications.error"},
		{"notifications.*", "notifications.*"},
		{"versioned.notifications", "versioned.notifications.info"},
	}
	for _, tt := range tests {
		if got := (Config{Topic: tt.topic}).RoutingKey(); got != tt.want {
			t.Errorf("RoutingKey() of topic %q = %q, want %q", tt.topic, got, tt.want)
		}
	}
}

func TestRedactedURL(t *testing.T) {
	c := Config{URL: "amqp://ipsync:s3cret@rmq:5672/"}
	if got := c.RedactedURL(); strings.Contains(got, "s3cret") || !strings.Contains(got, "rmq:5672") {
		t.Errorf("RedactedURL() = %q, want host without password", got)
	}
}

func TestQueueArgs(t *testing.T) {
	tests := []struct {
		cfg  Config
		want map[string]any
	}{
		{Config{}, nil},
		{Config{MessageTTL: 6 * time.Hour}, map[string]any{"x-message-ttl": int64(21600000)}},
		{Config{MaxLength: 100000, MessageTTL: time.Second},
			map[string]any{"x-max-length": int64(100000), "x-message-ttl": int64(1000)}},
		{Config{KeepFor: 24 * time.Hour}, map[string]any{"x-expires": int64(86400000)}},
	}
	for _, tt := range tests {
		if got := tt.cfg.queueArgs(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("queueArgs() of %+v = %v, want %v", tt.cfg, got, tt.want)
		}
	}
}
