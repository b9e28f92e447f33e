package events

import (
	"reflect"
	"testing"
)

// The notifications a real Neutron sent while a router got a gateway and an
// interface and a floating IP came and went (captured from its exchange):
// each names the network whose addresses changed, so that network is synced
// at once instead of at the next periodic sync.
func TestParseAddressNotifications(t *testing.T) {
	const (
		external = "2994f9eb-1582-4b61-8c52-d1bd44111fd7"
		internal = "8aeddd4b-98c8-4cfb-9124-e5094ceefe97"
		router   = "0729a057-a842-474a-956d-db48ac651ae7"
		fip      = "4c104eec-df73-4d95-b86c-2fcf0b6c411a"
	)
	tests := []struct {
		file             string
		resource, action string
		ids, networks    []string
	}{
		{"router-interface-create.json", RouterInterface, Create, []string{router}, []string{internal}},
		{"router-interface-delete.json", RouterInterface, Delete, []string{router}, []string{internal}},
		{"router-create-gateway.json", Router, Create, []string{router}, []string{external}},
		{"floatingip-create.json", FloatingIP, Create, []string{fip}, []string{external}},
		{"floatingip-update-disassociate.json", FloatingIP, Update, []string{fip}, []string{external}},
		{"floatingip-delete.json", FloatingIP, Delete, []string{fip}, []string{external}},
		// The gateway it had is not named: a full reconcile.
		{"router-update-gateway-cleared.json", Router, Update, []string{router}, nil},
		// A payload without the floating network (an older Neutron).
		{"floatingip-update.json", FloatingIP, Update, []string{"1c3e5a7c-9e1a-4c3e-8a5c-7e9a1c3e5a7b"}, nil},
	}
	for _, tt := range tests {
		got, err := ParseNotification(readFixture(t, tt.file))
		if err != nil || len(got) != 1 {
			t.Fatalf("ParseNotification(%s) = %v, %v; want one event", tt.file, got, err)
		}
		ev := got[0]
		if ev.Resource != tt.resource || ev.Action != tt.action || !reflect.DeepEqual(ev.IDs, tt.ids) || !reflect.DeepEqual(ev.NetworkIDs, tt.networks) {
			t.Errorf("ParseNotification(%s) = %s %s ids %v networks %v, want %s %s ids %v networks %v",
				tt.file, ev.Resource, ev.Action, ev.IDs, ev.NetworkIDs, tt.resource, tt.action, tt.ids, tt.networks)
		}
	}
}

// A router deleted after its gateway was cleared gives no address back.
func TestParseRouterDeleteWithoutGateway(t *testing.T) {
	got, err := ParseNotification(readFixture(t, "router-delete.json"))
	if got != nil || err != nil {
		t.Errorf("ParseNotification(router-delete.json) = %v, %v; want nil, nil", got, err)
	}
}

// In a batch, address notifications narrow the sync to their networks, or
// make it full when they cannot say which network changed.
func TestCoalesceAddressEvents(t *testing.T) {
	tests := []struct {
		name     string
		files    []string
		networks []string
		full     bool
	}{
		{"interface and floating IP", []string{"router-interface-create.json", "floatingip-create.json"},
			[]string{"2994f9eb-1582-4b61-8c52-d1bd44111fd7", "8aeddd4b-98c8-4cfb-9124-e5094ceefe97"}, false},
		{"gateway cleared", []string{"router-update-gateway-cleared.json"}, nil, true},
	}
	for _, tt := range tests {
		c := newCollector()
		for _, f := range tt.files {
			evs, err := ParseNotification(readFixture(t, f))
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range evs {
				c.add(ev)
			}
		}
		b := c.batch()
		if !reflect.DeepEqual(b.NetworkIDs, tt.networks) || b.Unattributed != tt.full {
			t.Errorf("%s: batch networks %v unattributed %v, want %v %v", tt.name, b.NetworkIDs, b.Unattributed, tt.networks, tt.full)
		}
	}
}
