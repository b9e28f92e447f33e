// Package ownership is how ipsync marks what it owns on a target, the same
// on Nautobot and NetBox: a tag, and a custom field holding the owner.
// It reads the owner off an object and checks, before the first write,
// that the marker exists for every object type a plan writes.
package ownership

import (
	"encoding/json"

	"github.com/ipsync/ipsync/internal/resource"
)

// Marker names the marker tag and the owner's custom field.
type Marker struct {
	Tag        string // tag name, e.g. "managed-by-ipsync"
	OwnerField string // custom field key, e.g. "ipsync_owner"
}

// Owner reads an object's owner from its custom fields. The owner counts
// only on an object that carries the marker tag (tagged), so a custom
// field copied with an object, or left after the tag was taken off,
// does not make ipsync its owner.
func (m Marker) Owner(tagged bool, customFields map[string]json.RawMessage) resource.Owner {
	if !tagged {
		return ""
	}
	var owner string
	if raw, ok := customFields[m.OwnerField]; !ok || json.Unmarshal(raw, &owner) != nil {
		return ""
	}
	return resource.Owner(owner)
}

// LeaseTagPrefix begins the name of every lease tag (see package lease).
// Lease tags are locks, never put on objects: a follower of a change log
// passes over their changes, which every acquiring, renewal and release
// of a lease makes.
const LeaseTagPrefix = "ipsync-lease:"
