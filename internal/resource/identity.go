package resource

import "net/netip"

// Identity is a natural key in a comparable form that costs no allocation to
// build, for indexing millions of objects; Key is its printable twin. Which
// fields are used depends on the kind.
type Identity struct {
	Kind Kind
	Name string     // name, group, or namespace
	Addr netip.Addr // network or host address
	Num  uint32     // vid, prefix length, or ASN
}

func (o *Namespace) Identity() Identity { return Identity{Kind: KindNamespace, Name: o.Name} }
func (o *VLANGroup) Identity() Identity { return Identity{Kind: KindVLANGroup, Name: o.Name} }
func (o *VLAN) Identity() Identity {
	return Identity{Kind: KindVLAN, Name: o.Group, Num: uint32(o.VID)}
}
func (o *SegmentRange) Identity() Identity { return Identity{Kind: KindSegmentRange, Name: o.Name} }
func (o *ASN) Identity() Identity          { return Identity{Kind: KindASN, Num: o.ASN} }

func (o *Prefix) Identity() Identity {
	return Identity{Kind: KindPrefix, Name: o.Namespace, Addr: o.Prefix.Addr(), Num: uint32(o.Prefix.Bits())}
}

func (o *IPAddress) Identity() Identity {
	return Identity{Kind: KindIPAddress, Name: o.Namespace, Addr: o.Address.Addr()}
}
