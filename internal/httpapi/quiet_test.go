package httpapi

import (
	"context"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/serverstall"
	"github.com/ipsync/ipsync/internal/syncbuf"
)

// TestDoSaysWhatItWaitsFor: a server that takes the connection and never
// answers holds a request for its whole timeout; before the timeout, the
// log says which request waits on which server.
func TestDoSaysWhatItWaitsFor(t *testing.T) {
	u, _ := url.Parse("http://" + serverstall.Silent(t))
	var log syncbuf.Buffer
	c := New(Config{Base: u, Server: "nautobot", Timeout: time.Second, Log: slog.New(slog.NewTextHandler(&log, nil))})
	_, err := c.Do(context.Background(), Request{Method: "GET", Path: "/api/status/"})
	if err == nil {
		t.Fatal("Do against a server that never answers succeeded")
	}
	got := log.String()
	for _, want := range []string{"nautobot has not answered yet", "path=/api/status/", "timeout=1s"} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %q:\n%s", want, got)
		}
	}
}

// TestMaxWaitCapsARequest: against a server that never answers, each
// attempt lasts the whole timeout; MaxWait stops the retries before one
// could end after it, and the error names the setting.
func TestMaxWaitCapsARequest(t *testing.T) {
	u, _ := url.Parse("http://" + serverstall.Silent(t))
	tests := []struct {
		name     string
		maxWait  time.Duration
		attempts int64
		wantErr  string
	}{
		// 0.3s a timeout, 0.5s the first backoff (jitter at its middle):
		// the second attempt ends at 1.1s, a third would at 2.1s.
		{"no cap: every retry", 0, 3, "giving up after 3 attempts"},
		{"room for two", 1500 * time.Millisecond, 2, "giving up after 2 attempts in 1s: one more could end after nautobot.max_wait (1.5s)"},
		{"room for one", 500 * time.Millisecond, 1, "giving up after 1 attempt in 0s: one more could end after nautobot.max_wait (500ms)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(Config{Base: u, Server: "nautobot", Timeout: 300 * time.Millisecond, MaxRetries: 2, MaxWait: tt.maxWait,
				Jitter: func() float64 { return 0.5 }})
			_, err := c.Do(context.Background(), Request{Method: "GET", Path: "/api/status/"})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Do = %v, want an error containing %q", err, tt.wantErr)
			}
			if got := c.Requests(); got != tt.attempts {
				t.Errorf("%d attempts, want %d", got, tt.attempts)
			}
		})
	}
}
