package events

import "time"

// Resource kinds whose changes matter to ipsync, spelled as Neutron spells
// them in event types and payload keys.
const (
	Network             = "network"
	Subnet              = "subnet"
	Port                = "port"
	Segment             = "segment"
	NetworkSegmentRange = "network_segment_range"
)

// Actions of the notifications that are parsed; only the ".end" phase is
// used because ".start" is sent before the change is committed.
const (
	Create = "create"
	Update = "update"
	Delete = "delete"
)

// Resync is the Type and Resource of the event the consumer sends each
// time it starts consuming, but for a first session whose queue is shown
// kept since the agent's clean stop (see marker.go). Neutron's exchange is
// transient, so a broker restart drops the queue's binding, and whatever
// Neutron published before the consumer bound it again reached no queue;
// nor can a standby that takes over tell what its queue lost while nobody
// consumed it. The event names no network, so the agent reads Neutron
// whole: notifications after the binding are queued, changes before it
// are in that read.
const Resync = "resync"

// collection is the plural Neutron uses as the payload key of bulk creates;
// ok is false for resources ipsync does not track.
func collection(resource string) (plural string, ok bool) {
	switch resource {
	case Network, Subnet, Port, Segment:
		return resource + "s", true
	case NetworkSegmentRange:
		return "network_segment_ranges", true
	}
	return "", false
}

// Event is one Neutron notification about a resource ipsync tracks.
type Event struct {
	// Type is the notification's event_type, e.g. "port.create.end".
	Type string
	// Resource is one of Network, Subnet, Port, Segment, NetworkSegmentRange,
	// or Router, RouterInterface, FloatingIP (which give addresses without
	// port notifications; only their NetworkIDs matter).
	Resource string
	// Action is one of Create, Update, Delete.
	Action string
	// IDs are the ids of the resources the notification is about: one, or
	// several for a bulk create. Empty when the payload named none.
	IDs []string
	// NetworkIDs are the networks the resources belong to (for networks,
	// their own ids). It is nil unless every resource's network is known, so
	// an empty list always means "not attributable" and never "partly".
	// Segment ranges belong to no network and always leave it nil.
	NetworkIDs []string
	// Timestamp is when Neutron emitted the notification (UTC); the consumer
	// fills in the receive time when the message carries none.
	Timestamp time.Time
	// MessageID is oslo's message_id, for logs and de-duplication.
	MessageID string
}

// attributed reports whether the event names every network it touches, or
// needs none (segment ranges).
func (e Event) attributed() bool {
	return e.Resource == NetworkSegmentRange || len(e.NetworkIDs) > 0
}
