package resource

import "fmt"

// Kind names one type of object. The string is what appears in plans, JSON
// and spec files, so it is part of the saved-plan format.
type Kind string

const (
	KindNamespace    Kind = "namespace"
	KindVLANGroup    Kind = "vlan_group"
	KindVLAN         Kind = "vlan"
	KindPrefix       Kind = "prefix"
	KindIPAddress    Kind = "ip_address"
	KindSegmentRange Kind = "segment_range"
	KindASN          Kind = "asn"
	// Neutron's own kinds, written to a site's Neutron only.
	KindAddressScope Kind = "address_scope"
	KindSubnetPool   Kind = "subnet_pool"
)

// Kinds lists every kind in dependency order: an object may refer only to
// objects of kinds earlier in the list. Creates follow this order, deletes
// run it backwards.
func Kinds() []Kind {
	return []Kind{KindNamespace, KindVLANGroup, KindVLAN, KindPrefix, KindIPAddress, KindSegmentRange, KindASN, KindAddressScope, KindSubnetPool}
}

// Rank is the position of k in Kinds, or -1 for an unknown kind.
func (k Kind) Rank() int {
	switch k { // a switch, not a loop over Kinds: the planner asks per object
	case KindNamespace:
		return 0
	case KindVLANGroup:
		return 1
	case KindVLAN:
		return 2
	case KindPrefix:
		return 3
	case KindIPAddress:
		return 4
	case KindSegmentRange:
		return 5
	case KindASN:
		return 6
	case KindAddressScope:
		return 7
	case KindSubnetPool:
		return 8
	}
	return -1
}

// ParseKind accepts a kind's name as written in plans and specs.
func ParseKind(s string) (Kind, error) {
	k := Kind(s)
	if k.Rank() < 0 {
		return "", fmt.Errorf("unknown kind %q", s)
	}
	return k, nil
}

// NeutronOnly reports whether objects of kind k are written to a site's
// Neutron only, never to Nautobot or NetBox.
func (k Kind) NeutronOnly() bool {
	return k == KindSegmentRange || k == KindAddressScope || k == KindSubnetPool
}
