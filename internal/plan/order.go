package plan

import (
	"cmp"
	"net/netip"
	"slices"

	"github.com/ipsync/ipsync/internal/resource"
)

// sortChanges puts changes in the order they are applied, keeping the
// order they came in where compareChanges sees no difference. It sorts
// positions, not the changes: moving 20,000 changes of 136 bytes each
// through a stable sort's rotations cost more than the comparisons.
// Then it moves each change once, to its place, following the cycles of
// the permutation.
func sortChanges(cs []Change) {
	order := make([]int32, len(cs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		return cmp.Or(compareChanges(&cs[a], &cs[b]), cmp.Compare(a, b))
	})
	for k := range order {
		if order[k] < 0 {
			continue
		}
		first := cs[k]
		for j := k; ; {
			from := int(order[j])
			order[j] = -1
			if from == k {
				cs[j] = first
				break
			}
			cs[j] = cs[from]
			j = from
		}
	}
}

// phase orders the groups of changes: writes parent-first, then deletes
// child-first, then conflicts (never applied, listed last).
func phase(a Action) int {
	switch a {
	case Delete:
		return 1
	case Conflict:
		return 2
	}
	return 0
}

func compareChanges(a, b *Change) int {
	if c := cmp.Compare(phase(a.Action), phase(b.Action)); c != 0 {
		return c
	}
	ra, rb := a.Key.Kind.Rank(), b.Key.Kind.Rank()
	if a.Action == Delete {
		ra, rb = rb, ra
	}
	if c := cmp.Compare(ra, rb); c != 0 {
		return c
	}
	if c := compareObjects(object(a), object(b), a.Action == Delete); c != 0 {
		return c
	}
	return cmp.Compare(a.Key.Name, b.Key.Name)
}

// compareObjects orders two objects of one kind as people read them:
// addresses and numbers by value (10.70.1.46 before 10.70.1.168, VLAN 99
// before 100), and prefixes so that a container is created before the
// prefixes inside it and deleted after them.
func compareObjects(a, b resource.Object, deleting bool) int {
	switch x := a.(type) {
	case *resource.Prefix:
		y, ok := b.(*resource.Prefix)
		if !ok {
			return 0
		}
		if c := cmp.Compare(x.Namespace, y.Namespace); c != 0 {
			return c
		}
		if deleting {
			// By last address, then narrowest first: what a prefix holds
			// ends at or before its own end.
			return cmp.Or(lastAddr(x.Prefix).Compare(lastAddr(y.Prefix)), cmp.Compare(y.Prefix.Bits(), x.Prefix.Bits()))
		}
		return cmp.Or(x.Prefix.Addr().Compare(y.Prefix.Addr()), cmp.Compare(x.Prefix.Bits(), y.Prefix.Bits()))
	case *resource.IPAddress:
		if y, ok := b.(*resource.IPAddress); ok {
			return cmp.Or(cmp.Compare(x.Namespace, y.Namespace), x.Address.Addr().Compare(y.Address.Addr()))
		}
	case *resource.VLAN:
		if y, ok := b.(*resource.VLAN); ok {
			return cmp.Or(cmp.Compare(x.Group, y.Group), cmp.Compare(x.VID, y.VID))
		}
	case *resource.ASN:
		if y, ok := b.(*resource.ASN); ok {
			return cmp.Compare(x.ASN, y.ASN)
		}
	}
	return 0
}

// lastAddr is the highest address of p.
func lastAddr(p netip.Prefix) netip.Addr {
	a := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(a)*8; i++ {
		a[i/8] |= 1 << (7 - i%8)
	}
	last, _ := netip.AddrFromSlice(a)
	return last
}

func object(c *Change) resource.Object {
	if c.Desired != nil {
		return c.Desired
	}
	return c.Current
}
