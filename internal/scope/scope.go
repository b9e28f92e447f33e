// Package scope defines the part of the target one owner's run covers. The
// CLI builds a Scope per owner (the static spec, or one site), the Nautobot
// reader reads what it names, and the planner plans within it; no layer has
// rules of its own.
package scope

import (
	"slices"

	"github.com/ipsync/ipsync/internal/resource"
)

// Scope is what one owner's run reads and plans.
//
// What is read: Kinds (empty: every kind the target holds) narrowed by name.
// Namespaces narrow namespaces, prefixes and IP addresses; VLANGroups narrow
// VLANs; Locations narrow namespaces, VLAN groups and prefixes. An empty
// list does not narrow. Every VLAN group is read whatever VLANGroups say:
// groups are few, and a VLAN may go to any of them. Objects carrying Owner's marker
// are read wherever they are, so that an owner always sees, and can delete,
// everything it made even where the narrowing no longer reaches.
//
// What is planned: everything read, unless Only is set. Only narrows the
// plan, never the read, to those objects: an event-driven sync of a few
// networks plans just what they account for. The rest of what was read
// still resolves references and counts towards the mass-delete guard.
type Scope struct {
	Owner      resource.Owner
	Kinds      []resource.Kind
	Namespaces []string
	VLANGroups []string
	Locations  []string
	Only       map[resource.Identity]bool
}

// Static is the scope of the static spec's owner: every kind it writes and
// refers to, not narrowed by name.
func Static(owner resource.Owner) Scope {
	return Scope{Owner: owner, Kinds: []resource.Kind{resource.KindNamespace, resource.KindVLANGroup, resource.KindVLAN,
		resource.KindPrefix, resource.KindIPAddress, resource.KindASN}}
}

// Site is the scope of a site's Neutron owner: VLANs of the groups its
// physical networks are configured to map to (its own VLANs elsewhere come
// by the marker, e.g. in the group named like an unconfigured physical
// network), prefixes and IP addresses of the site's namespace (and, by the
// marker, of the per-network namespaces the site made).
func Site(owner resource.Owner, namespace string, groups []string) Scope {
	return Scope{Owner: owner,
		Kinds:      []resource.Kind{resource.KindNamespace, resource.KindVLANGroup, resource.KindVLAN, resource.KindPrefix, resource.KindIPAddress},
		Namespaces: []string{namespace}, VLANGroups: slices.Sorted(slices.Values(groups))}
}

// Plans reports whether an object is planned: always, unless Only narrows
// the plan and leaves it out.
func (s Scope) Plans(o resource.Object) bool {
	return s.Only == nil || s.Only[o.Identity()]
}
