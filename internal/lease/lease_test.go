package lease

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/clock/clocktest"
	"github.com/ipsync/ipsync/internal/httpapi"
)

func TestOneHolderAtATime(t *testing.T) { eachServer(t, oneHolderAtATime) }

func oneHolderAtATime(t *testing.T, srv server) {
	ctx := context.Background()
	clk := clocktest.New(time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC))
	mk := func(holder string) *Lease {
		return New(srv.api, srv.fields, Config{Name: "neutron:a11", Holder: holder, TTL: time.Minute, Clock: clk})
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
	eachServer(t, concurrentContendersGetOneWinner)
}

func concurrentContendersGetOneWinner(t *testing.T, srv server) {
	ctx := context.Background()
	var wg sync.WaitGroup
	wins := make(chan string, 8)
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			l := New(srv.api, srv.fields, Config{Name: "neutron:b22", Holder: string(rune('a' + i))})
			ok, err := l.Acquire(ctx)
			switch {
			case err != nil:
				errs <- err
			case ok:
				wins <- l.cfg.Holder
			}
		})
	}
	wg.Wait()
	close(wins)
	close(errs)
	for err := range errs {
		t.Errorf("Acquire: %v", err)
	}
	var got []string
	for w := range wins {
		got = append(got, w)
	}
	if len(got) != 1 {
		t.Errorf("%d agents hold the lease (%q), want exactly 1", len(got), got)
	}
}

// TestLeasesOfNamesAlikeAreApart: names that make the same readable slug
// ("a.11" and "a11" both lose their dot) are two leases, each with its own
// holder; a shared slug would leave the second agent waiting forever.
func TestLeasesOfNamesAlikeAreApart(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		ctx := context.Background()
		for _, name := range []string{"neutron:a11", "neutron:a.11", "neutron:A11"} {
			l := New(srv.api, srv.fields, Config{Name: name, Holder: "agent-" + name})
			if ok, err := l.Acquire(ctx); err != nil || !ok {
				t.Errorf("Acquire(%s) = %v, %v; want the lease, free under its own name", name, ok, err)
			}
		}
	})
}

// TestRefusedTagIsAnError: a server that refuses the tag itself (here
// NetBox, given no slug) makes Acquire fail, rather than leave the agent
// waiting as if another held the lease.
func TestRefusedTagIsAnError(t *testing.T) {
	srv := realNetBox(t)
	noSlug := func(string) map[string]any { return map[string]any{} }
	_, err := New(srv.api, noSlug, Config{Name: "neutron:a11", Holder: "agent-a"}).Acquire(context.Background())
	var apiErr *httpapi.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 400 {
		t.Errorf("Acquire with a tag NetBox refuses = %v, want the 400 answer as an error", err)
	}
}
