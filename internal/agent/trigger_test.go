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
		{"nil and one", nil, &Trigger{NetworkIDs: []string{"n1"}, Events: 1, Oldest: t0},
			&Trigger{NetworkIDs: []string{"n1"}, Events: 1, Oldest: t0}},
		{"union keeps order and drops duplicates",
			&Trigger{NetworkIDs: []string{"n1", "n2"}, Events: 2, Oldest: t0.Add(time.Minute)},
			&Trigger{NetworkIDs: []string{"n2", "n3", "n3"}, Events: 1, Oldest: t0},
			&Trigger{NetworkIDs: []string{"n1", "n2", "n3"}, Events: 3, Oldest: t0}},
		{"ranges changed sticks",
			&Trigger{RangesChanged: true, Events: 1}, &Trigger{NetworkIDs: []string{"n1"}, Events: 1},
			&Trigger{NetworkIDs: []string{"n1"}, RangesChanged: true, Events: 2}},
		{"zero oldest is unknown, not oldest",
			&Trigger{Events: 1}, &Trigger{Events: 1, Oldest: t0},
			&Trigger{Events: 2, Oldest: t0}},
		// A sync of the whole site need not read Neutron: the networks
		// named are read anew within it.
		{"full keeps the named networks",
			&Trigger{NetworkIDs: []string{"n1"}, RangesChanged: true, Events: 1}, &Trigger{Full: true},
			&Trigger{NetworkIDs: []string{"n1"}, RangesChanged: true, Full: true, Events: 1}},
		{"unattributed reads Neutron whole, which covers the named networks",
			&Trigger{NetworkIDs: []string{"n1"}, Events: 1}, &Trigger{Unattributed: true, Events: 1},
			&Trigger{Full: true, Unattributed: true, Events: 2}},
		// A standby sync that failed goes back into the pending work,
		// which the holder may run: it must not stay a standby's.
		{"standby is not carried over",
			&Trigger{NetworkIDs: []string{"n1"}, Events: 1, Standby: true}, &Trigger{Full: true, Standby: true},
			&Trigger{NetworkIDs: []string{"n1"}, Full: true, Events: 1}},
		{"a sweep reads Neutron whole",
			&Trigger{NetworkIDs: []string{"n1"}, Events: 1}, &Trigger{Full: true, Sweep: true},
			&Trigger{Full: true, Sweep: true, Events: 1}},
		{"a sweep keeps that Neutron changed unattributed",
			&Trigger{Unattributed: true, Events: 1}, &Trigger{Full: true, Sweep: true},
			&Trigger{Full: true, Unattributed: true, Sweep: true, Events: 1}},
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
	a := &Trigger{NetworkIDs: make([]string, 1, 4)}
	a.NetworkIDs[0] = "n1"
	b := &Trigger{NetworkIDs: []string{"n2"}}
	merge(a, b)
	if got := a.NetworkIDs[:cap(a.NetworkIDs)][1]; got != "" {
		t.Errorf("merge wrote %q into a's spare capacity", got)
	}
}

func TestMergeTooManyNetworksReadsNeutronWhole(t *testing.T) {
	big := &Trigger{Events: 1}
	for i := range maxPendingIDs {
		big.NetworkIDs = append(big.NetworkIDs, fmt.Sprint("net-", i))
	}
	if got := merge(big, &Trigger{NetworkIDs: []string{"net-1"}, Events: 1}); got.Full || len(got.NetworkIDs) != maxPendingIDs {
		t.Errorf("merge of %d networks: Full=%v len(NetworkIDs)=%d, want them all, narrowed", maxPendingIDs, got.Full, len(got.NetworkIDs))
	}
	got := merge(big, &Trigger{NetworkIDs: []string{"net-x"}, Events: 1})
	if !got.Full || !got.Unattributed || got.NetworkIDs != nil || got.Events != 2 {
		t.Errorf("merge past %d networks: Full=%v Unattributed=%v len(NetworkIDs)=%d Events=%d, want a whole read of Neutron keeping the event count",
			maxPendingIDs, got.Full, got.Unattributed, len(got.NetworkIDs), got.Events)
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		in   Trigger
		want string
	}{
		{Trigger{Full: true}, "full"},
		{Trigger{Full: true, Events: 4}, "full (events 4)"},
		{Trigger{NetworkIDs: []string{"n"}, Events: 2}, "events 2"},
		{Trigger{Full: true, Sweep: true, Standby: true}, "standby: sweep"},
	}
	for _, tt := range tests {
		if got := describe(tt.in); got != tt.want {
			t.Errorf("describe(%+v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
