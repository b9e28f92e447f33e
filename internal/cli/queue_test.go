package cli

import (
	"strings"
	"testing"
	"time"
)

func TestOwnQueue(t *testing.T) {
	tests := []struct {
		name    string
		prefix  string
		state   *siteState
		want    string // the name, or its prefix when it is new
		same    bool   // want is the whole name: the one the state kept
		keepFor time.Duration
	}{
		{name: "no state: a new queue, gone with the agent", want: "ipsync-a11."},
		{name: "a prefix of the config's", prefix: "neutron-events", want: "neutron-events."},
		{name: "a state without a queue", state: &siteState{}, want: "ipsync-a11.", keepFor: 24 * time.Hour},
		{name: "the state's queue, consumed again", state: &siteState{queue: "ipsync-a11.host-1.abcdefgh"},
			want: "ipsync-a11.host-1.abcdefgh", same: true, keepFor: 24 * time.Hour},
		{name: "the state's queue is of another prefix", prefix: "other", state: &siteState{queue: "ipsync-a11.host-1.abcdefgh"},
			want: "other.", keepFor: 24 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := ownQueue(tt.prefix, "a11", tt.state)
			if tt.same && q.name != tt.want || !tt.same && (!strings.HasPrefix(q.name, tt.want) || len(q.name) <= len(tt.want)+9) {
				t.Errorf("name %q, want %q", q.name, tt.want)
			}
			if q.keepFor != tt.keepFor {
				t.Errorf("keepFor %v, want %v", q.keepFor, tt.keepFor)
			}
			if tt.state != nil && tt.state.queue != q.name {
				t.Errorf("state keeps queue %q, want %q for the next start", tt.state.queue, q.name)
			}
			// Two agents on one host never share a queue.
			if again := ownQueue(tt.prefix, "a11", nil); again.name == q.name {
				t.Errorf("a second agent got the same queue %q", q.name)
			}
		})
	}
}
