package sot

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/resource"
)

// quietLog is a change log nothing is written to; refuse makes every
// read of it fail.
type quietLog struct{ refuse bool }

func (l quietLog) err() error {
	if l.refuse {
		return errFake
	}
	return nil
}

func (l quietLog) Newest(context.Context, []string) (changelog.Entry, bool, error) {
	return changelog.Entry{}, false, l.err()
}

func (l quietLog) Since(context.Context, []string, time.Time) ([]changelog.Entry, error) {
	return nil, l.err()
}

func (l quietLog) Count(context.Context, []string, time.Time, time.Time, bool) (int, error) {
	return 0, l.err()
}

// TestTargetFollows: every read of the follower is a State of its view,
// named by the whole read it follows on from; a saved view resumes so.
func TestTargetFollows(t *testing.T) {
	w := newWorld()
	log := FollowedLog{Log: quietLog{}, Types: []string{"ipam.vlan"}, Kinds: map[string]resource.Kind{"ipam.vlan": resource.KindVLAN}, Clock: clock.Real()}
	tg := NewTarget(newDialect(w), testScope, log)
	st, err := tg.Follow(bg)
	if err != nil || !slices.Equal(keys(st.Objects()), wholeRead) {
		t.Fatalf("Follow = %v, %v", st, err)
	}
	whole := st.(*State[string, *fakeReader]).Read()
	for name, refresh := range map[string]func(context.Context) (any, error){
		"Refresh": func(ctx context.Context) (any, error) { st, _, err := tg.Refresh(ctx); return st, err },
		"RefreshUnchecked": func(ctx context.Context) (any, error) {
			st, _, err := tg.RefreshUnchecked(ctx)
			return st, err
		},
		"Sweep": func(ctx context.Context) (any, error) { st, _, err := tg.Sweep(ctx); return st, err },
	} {
		got, err := refresh(bg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		st := got.(*State[string, *fakeReader])
		if !slices.Equal(keys(st.Objects()), wholeRead) {
			t.Errorf("%s = %q, want the view", name, keys(st.Objects()))
		}
		if name != "Sweep" && st.Read() != whole {
			t.Errorf("%s's State is not named by the whole read it follows on from", name)
		}
		whole = tg.lastWhole()
	}
	saved, ok, err := tg.Save()
	if err != nil || !ok {
		t.Fatalf("Save = %v, %v", ok, err)
	}
	again := NewTarget(newDialect(w), testScope, log)
	if err := again.Resume(bg, saved); err != nil {
		t.Fatal(err)
	}
	st, _, err = again.Refresh(bg)
	if err != nil || !slices.Equal(keys(st.Objects()), wholeRead) || !st.Names()[resource.KindNamespace]["site-a"] {
		t.Errorf("Refresh after Resume = %v, %v; want the saved view, named as saved", st, err)
	}

	w.fail["begin"] = true
	if _, err := tg.Follow(bg); !errors.Is(err, errFake) {
		t.Errorf("Follow failing = %v", err)
	}
	if _, _, err := tg.Refresh(bg); err == nil {
		t.Error("Refresh after a failed Follow succeeded")
	}
	if _, _, err := tg.Sweep(bg); !errors.Is(err, errFake) {
		t.Errorf("Sweep failing = %v", err)
	}
	w.fail["begin"] = false
	refusing := NewTarget(newDialect(w), testScope, FollowedLog{Log: quietLog{refuse: true}, Clock: clock.Real()})
	if _, err := refusing.Follow(bg); !errors.Is(err, errFake) {
		t.Errorf("Follow of an unreadable log = %v", err)
	}
}
