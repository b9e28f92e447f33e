package lease

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/clock/clocktest"
	"github.com/ipsync/ipsync/internal/nautobot"
	"github.com/ipsync/ipsync/internal/nautobot/nbtest"
)

func TestOneHolderAtATime(t *testing.T) { nbtest.Each(t, oneHolderAtATime) }

func oneHolderAtATime(t *testing.T, srv *nbtest.Server) {
	ctx := context.Background()
	clk := clocktest.New(time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC))
	mk := func(holder string) *Lease {
		return New(client(t, srv), Config{Name: "neutron:a11", Holder: holder, TTL: time.Minute, Clock: clk})
	}
	a, b := mk("agent-a"), mk("agent-b")

	steps := []struct {
		name  string
		do    func()
		lease *Lease
		want  bool
	}{
		{"a takes the free lease", nil, a, true},
		{"b waits while a holds it", nil, b, false},
		{"a renews", func() { clk.Advance(40 * time.Second) }, a, true},
		{"b still waits after the renewal", func() { clk.Advance(40 * time.Second) }, b, false},
		{"b takes over once a's lease expired", func() { clk.Advance(2 * time.Minute) }, b, true},
		{"a lost it and must not write", nil, a, false},
		{"a takes it after b releases", func() {
			if err := b.Release(ctx); err != nil {
				t.Fatal(err)
			}
		}, a, true},
	}
	for _, s := range steps {
		if s.do != nil {
			s.do()
		}
		got, err := s.lease.Acquire(ctx)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got != s.want {
			t.Errorf("%s: Acquire = %v, want %v", s.name, got, s.want)
		}
	}
	if h, _ := b.Holder(ctx); h != "agent-a" {
		t.Errorf("Holder = %q, want agent-a", h)
	}
}

func TestConcurrentContendersGetOneWinner(t *testing.T) {
	nbtest.Each(t, concurrentContendersGetOneWinner)
}

func concurrentContendersGetOneWinner(t *testing.T, srv *nbtest.Server) {
	ctx := context.Background()
	var wg sync.WaitGroup
	wins := make(chan string, 8)
	for i := range 8 {
		wg.Go(func() {
			l := New(client(t, srv), Config{Name: "neutron:b22", Holder: string(rune('a' + i))})
			if ok, err := l.Acquire(ctx); err == nil && ok {
				wins <- l.cfg.Holder
			}
		})
	}
	wg.Wait()
	close(wins)
	var got []string
	for w := range wins {
		got = append(got, w)
	}
	if len(got) != 1 {
		t.Errorf("%d agents hold the lease (%q), want exactly 1", len(got), got)
	}
}

func client(t *testing.T, srv *nbtest.Server) *nautobot.Client {
	t.Helper()
	c, err := nautobot.New(nautobot.Config{URL: srv.URL(), Token: srv.Token()}, slog.New(slog.DiscardHandler), nautobot.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}
