package events

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

const (
	net1  = "0d3f5c1e-8a2b-4c6d-9e1f-3a5b7c9d1e2f"
	net2  = "6b8d0f2a-4c6e-4a8b-8c0e-2f4a6c8e0b1d"
	net3  = "c4e6a8b0-2d4f-4b6d-8f0a-4c6e8a0c2e4f"
	sub1  = "e1a3c5e7-9b1d-4f3a-8c5e-7a9b1d3f5a7c"
	sub2  = "2a4c6e8a-0c2e-4a4c-9e6a-8c0e2a4c6e8b"
	port1 = "9f1b3d5f-7a9c-4e1a-8b3d-5f7a9c1e3b5d"
	port2 = "3d5f7b9d-1f3a-4c5e-9a7c-1e3b5d7f9a1c"
	port3 = "7b9d1f3b-5d7f-4a9c-8e1a-3c5e7a9c1e3f"
	seg1  = "5e7a9c1e-3a5c-4e7a-9c1e-5a7c9e1a3c5e"
	rng1  = "a0c2e4a6-8c0e-4a2c-8e4a-6c8e0a2c4e6a"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The fixtures are message bodies as oslo.messaging's rabbit driver put them
// on the wire (messagingv2 driver unless named v1), with Neutron API payloads.
func TestParseNotificationResources(t *testing.T) {
	tests := []struct {
		file                  string
		typ, resource, action string
		ids, networks         []string
	}{
		{"network-create.json", "network.create.end", Network, Create, []string{net1}, []string{net1}},
		{"network-create-routed.json", "network.create.end", Network, Create, []string{net3}, []string{net3}},
		{"network-create-bulk.json", "network.create.end", Network, Create, []string{net1, net2}, []string{net1, net2}},
		{"network-update.json", "network.update.end", Network, Update, []string{net1}, []string{net1}},
		{"network-delete.json", "network.delete.end", Network, Delete, []string{net2}, []string{net2}},
		{"network-delete-v1-id-only.json", "network.delete.end", Network, Delete, []string{net2}, []string{net2}},
		{"subnet-create.json", "subnet.create.end", Subnet, Create, []string{sub1}, []string{net1}},
		{"subnet-update.json", "subnet.update.end", Subnet, Update, []string{sub1}, []string{net1}},
		{"subnet-delete.json", "subnet.delete.end", Subnet, Delete, []string{sub2}, []string{net3}},
		{"subnet-create-empty-payload.json", "subnet.create.end", Subnet, Create, nil, nil},
		{"port-create.json", "port.create.end", Port, Create, []string{port1}, []string{net1}},
		{"port-create-bulk.json", "port.create.end", Port, Create, []string{port1, port2, port3}, []string{net1, net3}},
		{"port-update.json", "port.update.end", Port, Update, []string{port1}, []string{net1}},
		{"port-delete.json", "port.delete.end", Port, Delete, []string{port2}, []string{net1}},
		{"port-delete-id-only.json", "port.delete.end", Port, Delete, []string{port2}, nil},
		{"segment-create.json", "segment.create.end", Segment, Create, []string{seg1}, []string{net3}},
		{"segment-update.json", "segment.update.end", Segment, Update, []string{seg1}, []string{net3}},
		{"segment-delete.json", "segment.delete.end", Segment, Delete, []string{seg1}, []string{net3}},
		{"range-create.json", "network_segment_range.create.end", NetworkSegmentRange, Create, []string{rng1}, nil},
		{"range-update.json", "network_segment_range.update.end", NetworkSegmentRange, Update, []string{rng1}, nil},
		{"range-delete.json", "network_segment_range.delete.end", NetworkSegmentRange, Delete, []string{rng1}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ParseNotification(readFixture(t, tt.file))
			if err != nil {
				t.Fatalf("ParseNotification(%s) error: %v", tt.file, err)
			}
			if len(got) != 1 {
				t.Fatalf("ParseNotification(%s) = %d events, want 1", tt.file, len(got))
			}
			ev := got[0]
			if ev.Type != tt.typ || ev.Resource != tt.resource || ev.Action != tt.action {
				t.Errorf("type, resource, action = %q, %q, %q, want %q, %q, %q",
					ev.Type, ev.Resource, ev.Action, tt.typ, tt.resource, tt.action)
			}
			if !reflect.DeepEqual(ev.IDs, tt.ids) {
				t.Errorf("IDs = %v, want %v", ev.IDs, tt.ids)
			}
			if !reflect.DeepEqual(ev.NetworkIDs, tt.networks) {
				t.Errorf("NetworkIDs = %v, want %v", ev.NetworkIDs, tt.networks)
			}
			if ev.MessageID == "" {
				t.Errorf("MessageID is empty")
			}
			if ev.Timestamp.IsZero() {
				t.Errorf("Timestamp is zero")
			}
		})
	}
}

func TestParseNotificationEnvelopeFields(t *testing.T) {
	tests := []struct {
		file      string
		messageID string
		timestamp time.Time
	}{
		{"port-create.json", "71ebdf9f-727d-4730-bb48-dae5f31ec0be", time.Date(2026, 12, 2, 13, 46, 50, 415229000, time.UTC)},
		{"network-delete-v1-id-only.json", "f8f95c3d-970f-45ca-bb83-4831179f33b5", time.Date(2026, 12, 2, 13, 46, 50, 408211000, time.UTC)},
		{"subnet-create-empty-payload.json", "5c0f7a1e-2b4d-4e6f-8a1c-3e5a7c9e1b3d", time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)},
	}
	for _, tt := range tests {
		got, err := ParseNotification(readFixture(t, tt.file))
		if err != nil || len(got) != 1 {
			t.Fatalf("ParseNotification(%s) = %v, %v; want one event", tt.file, got, err)
		}
		if got[0].MessageID != tt.messageID {
			t.Errorf("%s: MessageID = %q, want %q", tt.file, got[0].MessageID, tt.messageID)
		}
		if !got[0].Timestamp.Equal(tt.timestamp) || got[0].Timestamp.Location() != time.UTC {
			t.Errorf("%s: Timestamp = %v, want %v", tt.file, got[0].Timestamp, tt.timestamp)
		}
	}
}

func TestParseNotificationIgnored(t *testing.T) {
	// A router made without a gateway has no addresses yet.
	for _, file := range []string{"router-create.json", "network-update-start.json"} {
		got, err := ParseNotification(readFixture(t, file))
		if got != nil || err != nil {
			t.Errorf("ParseNotification(%s) = %v, %v; want nil, nil", file, got, err)
		}
	}
}

func TestParseNotificationMalformed(t *testing.T) {
	for _, file := range []string{
		"malformed-not-json.json",
		"malformed-truncated.json",
		"malformed-inner.json",
		"malformed-version.json",
		"malformed-no-event-type.json",
		"malformed-payload-type.json",
	} {
		got, err := ParseNotification(readFixture(t, file))
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseNotification(%s) error = %v, want ErrMalformed", file, err)
		}
		if got != nil {
			t.Errorf("ParseNotification(%s) events = %v, want none", file, got)
		}
	}
}

func TestSplitEventType(t *testing.T) {
	tests := []struct {
		in               string
		resource, action string
		ok               bool
	}{
		{"port.create.end", Port, Create, true},
		{"network_segment_range.delete.end", NetworkSegmentRange, Delete, true},
		{"segment.update.end", Segment, Update, true},
		{"port.create.start", "", "", false},
		{"port.create.error", "", "", false},
		{"port.end", "", "", false},
		{"port.bind.end", "", "", false},
		{"router.interface.create", RouterInterface, Create, true},
		{"router.interface.delete", RouterInterface, Delete, true},
		{"router.interface.update", "", "", false},
		{"floatingip.delete.end", FloatingIP, Delete, true},
		{"router.update.end", Router, Update, true},
		{"router.update.start", "", "", false},
		{"subnetpool.create.end", "", "", false},
		{"", "", "", false},
	}
	for _, tt := range tests {
		r, a, ok := splitEventType(tt.in)
		if r != tt.resource || a != tt.action || ok != tt.ok {
			t.Errorf("splitEventType(%q) = %q, %q, %v, want %q, %q, %v", tt.in, r, a, ok, tt.resource, tt.action, tt.ok)
		}
	}
}

func TestParseTimestamp(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
	}{
		{"2025-03-14 09:26:53.120000", time.Date(2025, 3, 14, 9, 26, 53, 120000000, time.UTC)},
		{"2025-03-14 09:26:53", time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)},
		{"2025-03-14T10:26:53.5+01:00", time.Date(2025, 3, 14, 9, 26, 53, 500000000, time.UTC)},
		{"yesterday", time.Time{}},
		{"", time.Time{}},
	}
	for _, tt := range tests {
		if got := parseTimestamp(tt.in); !got.Equal(tt.want) {
			t.Errorf("parseTimestamp(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// Shapes not worth a captured fixture, in oslo's bare 1.0 format.
func TestParseNotificationPayloadShapes(t *testing.T) {
	tests := []struct {
		name          string
		body          string
		ids, networks []string
	}{
		{"bulk with one port of unknown network",
			`{"event_type": "port.create.end", "payload": {"ports": [{"id": "p1", "network_id": "n1"}, {"id": "p2"}]}}`,
			[]string{"p1", "p2"}, nil},
		{"delete body without id",
			`{"event_type": "port.delete.end", "payload": {"port_id": "p1", "port": {"network_id": "n1"}}}`,
			[]string{"p1"}, []string{"n1"}},
		{"null payload",
			`{"event_type": "segment.delete.end", "payload": null}`,
			nil, nil},
		{"network without id",
			`{"event_type": "network.update.end", "payload": {"network": {"name": "x"}}}`,
			nil, nil},
		{"repeated ids",
			`{"event_type": "subnet.create.end", "payload": {"subnets": [{"id": "s1", "network_id": "n1"}, {"id": "s1", "network_id": "n1"}]}}`,
			[]string{"s1"}, []string{"n1"}},
	}
	for _, tt := range tests {
		got, err := ParseNotification([]byte(tt.body))
		if err != nil || len(got) != 1 {
			t.Fatalf("%s: ParseNotification = %v, %v; want one event", tt.name, got, err)
		}
		if !reflect.DeepEqual(got[0].IDs, tt.ids) || !reflect.DeepEqual(got[0].NetworkIDs, tt.networks) {
			t.Errorf("%s: IDs, NetworkIDs = %v, %v, want %v, %v", tt.name, got[0].IDs, got[0].NetworkIDs, tt.ids, tt.networks)
		}
	}
}
