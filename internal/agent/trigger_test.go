package agent

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

func TestMerge(t *testing.T) {
	t0 := time.Date(2025, 3, 4, 5, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		a, b *Trigger
		want *Trigger
	}{
		{"both nil", nil, nil, nil},
		{"nil and one", nil, &Trigger{PortIDs: []string{"p1"}, Events: 1, Oldest: t0},
			&Trigger{PortIDs: []string{"p1"}, Events: 1, Oldest: t0}},
		{"union keeps order and drops duplicates",
			&Trigger{NetworkIDs: []string{"n1", "n2"}, Events: 2, Oldest: t0.Add(time.Minute)},
			&Trigger{NetworkIDs: []string{"n2", "n3", "n3"}, SubnetIDs: []string{"s1"}, Events: 1, Oldest: t0},
			&Trigger{NetworkIDs: []string{"n1", "n2", "n3"}, SubnetIDs: []string{"s1"}, Events: 3, Oldest: t0}},
		{"ranges changed sticks",
			&Trigger{RangesChanged: true, Events: 1}, &Trigger{SegmentIDs: []string{"g1"}, Events: 1},
			&Trigger{SegmentIDs: []string{"g1"}, RangesChanged: true, Events: 2}},
		{"zero oldest is unknown, not oldest",
			&Trigger{Events: 1}, &Trigger{Events: 1, Oldest: t0},
			&Trigger{Events: 2, Oldest: t0}},
		{"full wins and drops ids",
			&Trigger{PortIDs: []string{"p1"}, RangesChanged: true, Events: 1}, &Trigger{Full: true},
			&Trigger{Full: true, Events: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := merge(tt.a, tt.b); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("merge(%+v, %+v) = %+v, want %+v", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestMergeDoesNotAliasInputs(t *testing.T) {
	a := &Trigger{PortIDs: make([]string, 1, 4)}
	a.PortIDs[0] = "p1"
	b := &Trigger{PortIDs: []string{"p2"}}
	merge(a, b)
	if got := a.PortIDs[:cap(a.PortIDs)][1]; got != "" {
		t.Errorf("merge wrote %q into a's spare capacity", got)
	}
}

func TestMergeTooManyIDsBecomesFull(t *testing.T) {
	big := &Trigger{Events: 1}
	for i := range maxPendingIDs {
		big.PortIDs = append(big.PortIDs, fmt.Sprint("port-", i))
	}
	got := merge(big, &Trigger{NetworkIDs: []string{"net-1"}, Events: 1})
	if !got.Full || got.PortIDs != nil || got.NetworkIDs != nil || got.Events != 2 {
		t.Errorf("merge past %d ids: Full=%v len(PortIDs)=%d len(NetworkIDs)=%d Events=%d, want a full trigger keeping the event count",
			maxPendingIDs, got.Full, len(got.PortIDs), len(got.NetworkIDs), got.Events)
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		in   Trigger
		want string
	}{
		{Trigger{Full: true}, "full"},
		{Trigger{Full: true, Events: 4}, "full (events 4)"},
		{Trigger{PortIDs: []string{"p"}, Events: 2}, "events 2"},
	}
	for _, tt := range tests {
		if got := describe(tt.in); got != tt.want {
			t.Errorf("describe(%+v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
