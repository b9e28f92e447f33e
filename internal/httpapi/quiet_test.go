package httpapi

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedLog is a log sink read while the client writes to it.
type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestDoSaysWhatItWaitsFor: a server that takes the connection and never
// answers holds a request for its whole timeout; before the timeout, the
// log says which request waits on which server.
func TestDoSaysWhatItWaitsFor(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never answered
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	u, _ := url.Parse("http://" + ln.Addr().String())
	var log lockedLog
	c := New(Config{Base: u, Server: "nautobot", Timeout: time.Second, Log: slog.New(slog.NewTextHandler(&log, nil))})
	_, err = c.Do(context.Background(), Request{Method: "GET", Path: "/api/status/"})
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
