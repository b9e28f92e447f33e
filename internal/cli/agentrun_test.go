package cli

import (
	"context"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/syncbuf"
)

// runningAgent is `ipsync agent` run in-process.
type runningAgent struct {
	listen string
	cancel context.CancelFunc
	kill   func() // SIGKILL, for an agent run as a process of its own
	done   chan int
	logs   *syncbuf.Buffer
}

// startAgent runs the agent of site a11 of cfg, listening on a free port.
func startAgent(t *testing.T, cfg string, flags ...string) *runningAgent {
	t.Helper()
	return startDaemon(t, append([]string{"agent", "--config", cfg, "--site", "a11"}, flags...))
}

// startDaemon runs ipsync with args (agent or reconcile) in this process,
// listening on a free port.
func startDaemon(t *testing.T, args []string) *runningAgent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	a := &runningAgent{listen: freeAddr(t), cancel: cancel, done: make(chan int, 1), logs: &syncbuf.Buffer{}}
	args = append(args, "--listen", a.listen)
	go func() {
		a.done <- Main(ctx, args, func(string) string { return "" }, a.logs, a.logs)
	}()
	t.Cleanup(func() { a.stop(t, time.Minute) })
	return a
}

// stop cancels the agent as SIGTERM does; it must exit 0 within limit.
// A test's cleanup stops it too, if the test did not.
func (a *runningAgent) stop(t *testing.T, limit time.Duration) {
	t.Helper()
	if a.cancel == nil {
		return
	}
	a.cancel()
	a.cancel = nil
	select {
	case code := <-a.done:
		if code != 0 {
			t.Errorf("agent exit %d after cancel; log:\n%s", code, a.logs.String())
		}
	case <-time.After(limit):
		t.Errorf("agent did not stop after cancel")
	}
}

// waitFor polls cond until it holds, failing the test with the agent's log
// after limit.
func (a *runningAgent) waitFor(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("agent did not %s; agent log:\n%s", what, a.logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
