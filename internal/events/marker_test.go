package events

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestMarkerRoundTrip(t *testing.T) {
	m := Marker{Nonce: "n1", Ahead: 7}
	got, ok := parseMarker(markerBody(m))
	if !ok || got != m {
		t.Fatalf("parseMarker(markerBody(%+v)) = %+v, %v", m, got, ok)
	}
	for _, body := range []string{
		`{"oslo.version": "2.0", "oslo.message": "{}"}`,
		`{"ipsync.marker": {"ahead": 1}}`,
		`{"ipsync.marker": {"nonce": "n"}, "event_type": "port.create.end"}`,
		`not json`,
	} {
		if m, ok := parseMarker([]byte(body)); ok {
			t.Errorf("parseMarker(%s) = %+v, want no marker", body, m)
		}
	}
}

func TestScanVerdict(t *testing.T) {
	ours := &Marker{Nonce: "ours", Ahead: 1}
	other := &Marker{Nonce: "other"}
	net := func(ids ...string) []Event { return []Event{{Resource: Network, NetworkIDs: ids}} }
	type msg struct {
		m   *Marker
		evs []Event
	}
	cases := []struct {
		name      string
		witnessed bool
		msgs      []msg
		kept      bool
		reason    string
		networks  []string
		unattr    bool
	}{
		{name: "kept", witnessed: true, msgs: []msg{{evs: net("a")}, {m: ours}, {evs: net("b", "c")}},
			kept: true, networks: []string{"a", "b", "c"}},
		{name: "an event naming no network", witnessed: true, msgs: []msg{{evs: net("a")}, {m: ours}, {evs: []Event{{Resource: Port}}}},
			kept: true, networks: []string{"a"}, unattr: true},
		{name: "an older marker before ours", witnessed: true, msgs: []msg{{m: other}, {m: ours}}, kept: true},
		{name: "no witness", msgs: []msg{{evs: net("a")}, {m: ours}}, reason: "witness"},
		{name: "no marker", witnessed: true, msgs: []msg{{evs: net("a")}}, reason: "marker"},
		{name: "empty queue", witnessed: true, reason: "marker"},
		{name: "message ahead dropped", witnessed: true, msgs: []msg{{m: ours}, {evs: net("a")}}, reason: "dropped"},
		{name: "another agent's marker after ours", witnessed: true, msgs: []msg{{evs: net("a")}, {m: ours}, {m: other}}, reason: "another agent"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newScan(&resume{want: *ours}, tc.witnessed, len(tc.msgs))
			for i, m := range tc.msgs {
				if s.done() {
					t.Fatalf("done after %d of %d messages", i, len(tc.msgs))
				}
				s.see(m.m, m.evs)
			}
			if !s.done() {
				t.Fatal("not done after the backlog")
			}
			v := s.verdict()
			slices.Sort(v.Networks)
			if v.Kept != tc.kept || !strings.Contains(v.Reason, tc.reason) || !slices.Equal(v.Networks, tc.networks) || v.Unattributed != tc.unattr {
				t.Errorf("verdict %+v, want kept %v, reason with %q, networks %v, unattributed %v", v, tc.kept, tc.reason, tc.networks, tc.unattr)
			}
		})
	}
}

// TestMarkNeedsALiveConsumer: only a consumer that consumed until it was
// stopped can vouch for its queue.
func TestMarkNeedsALiveConsumer(t *testing.T) {
	c := NewConsumer(Config{URL: "amqp://127.0.0.1:1/", Queue: "q"}, discard())
	if _, err := c.Mark(context.Background()); !errors.Is(err, ErrNotLive) {
		t.Errorf("Mark of a consumer that never consumed = %v, want ErrNotLive", err)
	}
}
