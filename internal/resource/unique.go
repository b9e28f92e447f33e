package resource

import (
	"fmt"
	"strconv"
)

// UniqueKey is a value the target keeps unique among the objects of one
// kind besides the natural key: Nautobot refuses a second VLAN with the
// same name in a group, as it refuses a second one with the same vid.
// The natural key decides which object is which; unique keys only say
// which objects cannot exist side by side.
type UniqueKey struct {
	Kind Kind
	// Field is the field that must differ, as in specs and plans.
	Field string
	// In is the object the value is unique in (a VLAN's group); the zero
	// Key when it is unique among all objects of the kind.
	In    Key
	Value string
}

func (u UniqueKey) String() string {
	s := fmt.Sprintf("%s %s %q", u.Kind, u.Field, u.Value)
	if u.In != (Key{}) {
		s += " in " + u.In.String()
	}
	return s
}

// Rule says what the target refuses, for messages: "two vlans with one
// name in one vlan_group".
func (u UniqueKey) Rule() string {
	s := fmt.Sprintf("two %ss with one %s", u.Kind, u.Field)
	if u.In != (Key{}) {
		s += " in one " + string(u.In.Kind)
	}
	return s
}

// The other kinds have no unique key besides the natural one: namespaces
// and VLAN groups are unique by name, which is their natural key;
// prefixes by namespace and network; IP addresses by parent prefix and
// host, which the namespace and host decide; ASNs by number; segment
// ranges are Neutron's, which keeps nothing but ids unique.
func (o *Namespace) UniqueKeys() []UniqueKey    { return nil }
func (o *VLANGroup) UniqueKeys() []UniqueKey    { return nil }
func (o *Prefix) UniqueKeys() []UniqueKey       { return nil }
func (o *IPAddress) UniqueKeys() []UniqueKey    { return nil }
func (o *SegmentRange) UniqueKeys() []UniqueKey { return nil }
func (o *ASN) UniqueKeys() []UniqueKey          { return nil }

// UniqueKeys of a VLAN: its name in its group. A VLAN without a group
// has none, as SQL uniqueness does not hold NULLs equal.
func (o *VLAN) UniqueKeys() []UniqueKey { return o.appendUniqueKeys(nil) }
func (o *VLAN) appendUniqueKeys(dst []UniqueKey) []UniqueKey {
	if o.Group == "" {
		return dst
	}
	return append(dst, UniqueKey{Kind: KindVLAN, Field: "name", In: Key{KindVLANGroup, o.Group}, Value: o.Name})
}

// AppendUniqueKeys appends o's unique keys, as UniqueKeys gives them, to
// dst: the planner asks every object of a site whether it has any, and a
// buffer it reuses spares an allocation for each VLAN.
func AppendUniqueKeys(dst []UniqueKey, o Object) []UniqueKey {
	if a, ok := o.(interface{ appendUniqueKeys([]UniqueKey) []UniqueKey }); ok {
		return a.appendUniqueKeys(dst)
	}
	return append(dst, o.UniqueKeys()...)
}

// Renumbering reports whether the target can turn current into desired in
// place although their natural keys differ, and the key field that
// changes: a VLAN keeping its group and name under another vid. Nautobot
// (and NetBox) allow changing a VLAN's vid; the VLAN keeps its id, and
// the prefixes that use it keep using it, while a delete of the old VLAN
// would be refused for as long as they do, and a create of the new one
// for as long as the old holds the name.
func Renumbering(desired, current Object) (FieldDiff, bool) {
	d, ok := desired.(*VLAN)
	c, ok2 := current.(*VLAN)
	if !ok || !ok2 || d.Group == "" || d.Group != c.Group || d.Name != c.Name || d.VID == c.VID {
		return FieldDiff{}, false
	}
	return FieldDiff{Field: "vid", Old: strconv.Itoa(int(c.VID)), New: strconv.Itoa(int(d.VID))}, true
}
