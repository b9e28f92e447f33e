// Package serverstall gives tests the two halves of a lost answer: a real
// server whose workers stall, through the command its start script offers
// (scripts/nautobot-up.sh stall SECONDS, scripts/netbox-up.sh stall
// SECONDS), so that requests it holds or queues are still being processed
// after a client gave up on them; and a transport that gives up on a
// request at once and delivers it later (HoldFirst).
package serverstall

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Run stops the workers of the server command stalls for d, and returns
// once they are stopped; they go on by themselves after d. A failure is
// reported on tb without stopping the caller, which may be a transport's
// goroutine rather than the test's own.
func Run(tb testing.TB, command string, d time.Duration) {
	tb.Helper()
	cmd := exec.Command("sh", "-c", fmt.Sprintf("%s %.1f", command, d.Seconds()))
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Errorf("stall the server (%s): %v\n%s", command, err, strings.TrimSpace(string(out)))
	}
}

// HoldFirst is a transport that loses the answer of the first POST to
// each of Paths at once and hands that request to Next only after Hold:
// the client, which gave up on it, looks for what it wrote while the
// request is still on its way, as when a stalled server is still writing
// it. Wait waits until the held requests have their answers.
type HoldFirst struct {
	Next  http.RoundTripper
	Paths []string
	Hold  time.Duration

	held firsts
	late sync.WaitGroup
}

func (h *HoldFirst) RoundTrip(r *http.Request) (*http.Response, error) {
	if !h.held.first(r, h.Paths) {
		return h.Next.RoundTrip(r)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	late := r.Clone(context.WithoutCancel(r.Context()))
	late.Body, late.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	h.late.Go(func() {
		time.Sleep(h.Hold)
		if resp, err := h.Next.RoundTrip(late); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	return nil, errors.New("timeout awaiting response headers")
}

// Held says how many requests were held.
func (h *HoldFirst) Held() int { return h.held.count() }

// Wait waits for the held requests' answers.
func (h *HoldFirst) Wait() { h.late.Wait() }

// StallFirst is a transport that calls Stall as the first POST to each of
// Paths goes out, before sending it on to Next: a server stalled then
// holds the request past the client's timeout, and handles it after.
type StallFirst struct {
	Next  http.RoundTripper
	Paths []string
	Stall func(path string)

	stalled firsts
}

func (s *StallFirst) RoundTrip(r *http.Request) (*http.Response, error) {
	if s.stalled.first(r, s.Paths) {
		s.Stall(r.URL.Path)
	}
	return s.Next.RoundTrip(r)
}

// Stalled says how many of Paths had a POST stalled.
func (s *StallFirst) Stalled() int { return s.stalled.count() }

// firsts tells the first POST to each path apart.
type firsts struct {
	mu   sync.Mutex
	seen map[string]bool
}

// first says whether r is the first POST to its path, one of paths.
func (f *firsts) first(r *http.Request, paths []string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Method != http.MethodPost || !slices.Contains(paths, r.URL.Path) || f.seen[r.URL.Path] {
		return false
	}
	if f.seen == nil {
		f.seen = map[string]bool{}
	}
	f.seen[r.URL.Path] = true
	return true
}

func (f *firsts) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.seen)
}
