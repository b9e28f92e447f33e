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
)

// Kinds lists every kind in dependency order: an object may refer only to
// objects of kinds earlier in the list. Creates follow this order, deletes
// run it backwards.
func Kinds() []Kind {
	return []Kind{KindNamespace, KindVLANGroup, KindVLAN, KindPrefix, KindIPAddress, KindSegmentRange, KindASN}
}

// Rank is the position of k in Kinds, or -1 for an unknown kind.
func (k Kind) Rank() int {
	for i, c := range Kinds() {
		if c == k {
			return i
		}
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
