package clocktest

import (
	"context"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/clock"
)

func TestAdvanceFiresDueTimers(t *testing.T) {
	c := New(Start)
	early, late := c.NewTimer(time.Second), c.NewTimer(time.Minute)
	stopped := c.NewTimer(time.Second)
	if !stopped.Stop() {
		t.Fatal("Stop() of a waiting timer = false, want true")
	}
	c.Advance(2 * time.Second)
	select {
	case got := <-early.C():
		if want := Start.Add(2 * time.Second); !got.Equal(want) {
			t.Errorf("fired at %v, want %v", got, want)
		}
	default:
		t.Error("timer due after 1s did not fire after 2s")
	}
	select {
	case <-late.C():
		t.Error("timer due after 1m fired after 2s")
	case <-stopped.C():
		t.Error("stopped timer fired")
	default:
	}
	if got := c.Deadlines(); len(got) != 1 || !got[0].Equal(Start.Add(time.Minute)) {
		t.Errorf("Deadlines() = %v, want [%v]", got, Start.Add(time.Minute))
	}
}

func TestInstantSleepsAtOnce(t *testing.T) {
	c := NewInstant(Start)
	for _, d := range []time.Duration{time.Second, 2 * time.Second} {
		if err := clock.Sleep(context.Background(), c, d); err != nil {
			t.Fatalf("Sleep(%v) = %v, want nil", d, err)
		}
	}
	if got, want := c.Now(), Start.Add(3*time.Second); !got.Equal(want) {
		t.Errorf("Now() = %v, want %v", got, want)
	}
	if got := c.Waits(); len(got) != 2 || got[0] != time.Second || got[1] != 2*time.Second {
		t.Errorf("Waits() = %v, want [1s 2s]", got)
	}
}

func TestSleepHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := clock.Sleep(ctx, New(Start), time.Hour); err == nil {
		t.Error("Sleep(cancelled, 1h) = nil, want the context's error")
	}
}
