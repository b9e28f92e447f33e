package resource

import "slices"

// Clone returns a deep copy of o, so a store can hand out objects that
// callers may change without changing what it holds.
func Clone(o Object) Object {
	switch x := o.(type) {
	case *Namespace:
		y := *x
		return &y
	case *VLANGroup:
		y := *x
		y.Range, y.Tags = slices.Clone(x.Range), slices.Clone(x.Tags)
		return &y
	case *VLAN:
		y := *x
		y.Tags = slices.Clone(x.Tags)
		return &y
	case *Prefix:
		y := *x
		y.Locations, y.Tags = slices.Clone(x.Locations), slices.Clone(x.Tags)
		return &y
	case *IPAddress:
		y := *x
		y.Tags = slices.Clone(x.Tags)
		return &y
	case *SegmentRange:
		y := *x
		return &y
	case *ASN:
		y := *x
		y.Tags = slices.Clone(x.Tags)
		return &y
	case *AddressScope:
		y := *x
		return &y
	case *SubnetPool:
		y := *x
		y.Prefixes = slices.Clone(x.Prefixes)
		return &y
	}
	panic("resource.Clone: unknown object type")
}
