package plan

import (
	"cmp"
	"net/netip"
	"slices"

	"github.com/ipsync/ipsync/internal/resource"
)

// sortChanges puts changes in the order they are applied (see orderKey),
// keeping the order they came in where the order sees no difference. It
// reads each change's key once and sorts positions, not the changes:
// moving 20,000 changes of 136 bytes each through a stable sort's
// rotations, and finding their objects' types at every comparison, cost
// more than the sort. With more than one worker, the two halves are
// sorted side by side and merged: it runs while the other cores wait.
// Then it moves each change once, to its place, following the cycles of
// the permutation.
func sortChanges(cs []Change, workers int) {
	keys := make([]orderKey, len(cs))
	order := make([]int32, len(cs))
	for i := range cs {
		keys[i] = orderOf(&cs[i])
		order[i] = int32(i)
	}
	byKey := func(a, b int32) int { return cmp.Or(keys[a].compare(&keys[b]), cmp.Compare(a, b)) }
	if workers > 1 && len(order) > 1 {
		halves := [2][]int32{order[:len(order)/2], order[len(order)/2:]}
		each(2, 2, func(_, k int) { slices.SortFunc(halves[k], byKey) })
		order = merge(halves[0], halves[1], byKey)
	} else {
		slices.SortFunc(order, byKey)
	}
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

// merge merges two sorted runs into a new one; on a tie the first run's
// element goes first.
func merge(a, b []int32, cmp func(a, b int32) int) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if cmp(b[0], a[0]) < 0 {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	return append(append(out, a...), b...)
}

// orderKey is where a change goes in a plan: writes parent-first, then
// deletes child-first, then conflicts (never applied, listed last); by
// kind in dependency order within each (backwards for deletes); then
// its object as people read them: addresses and numbers by value
// (10.70.1.46 before 10.70.1.168, VLAN 99 before 100), and prefixes so
// that a container is created before the prefixes inside it and deleted
// after them; last by the key's name.
type orderKey struct {
	phase, rank int
	scope       string     // namespace, VLAN group
	addr        netip.Addr // an address's host, a prefix's first address (its last, deleting)
	num         int64      // a prefix's length (negated, deleting: narrowest first), a VID, an ASN
	name        string
}

func orderOf(c *Change) orderKey {
	k := orderKey{phase: phase(c.Action), rank: c.Key.Kind.Rank(), name: c.Key.Name}
	deleting := c.Action == Delete
	if deleting {
		k.rank = -k.rank
	}
	o := c.Desired
	if o == nil {
		o = c.Current
	}
	switch x := o.(type) {
	case *resource.Prefix:
		k.scope, k.addr, k.num = x.Namespace, x.Prefix.Addr(), int64(x.Prefix.Bits())
		if deleting {
			// By last address, then narrowest first: what a prefix holds
			// ends at or before its own end.
			k.addr, k.num = lastAddr(x.Prefix), -k.num
		}
	case *resource.IPAddress:
		k.scope, k.addr = x.Namespace, x.Address.Addr()
	case *resource.VLAN:
		k.scope, k.num = x.Group, int64(x.VID)
	case *resource.ASN:
		k.num = int64(x.ASN)
	}
	return k
}

func (k *orderKey) compare(o *orderKey) int {
	// Field by field, not with cmp.Or, which would compare all of them
	// for every pair: most pairs differ in their first fields.
	if k.phase != o.phase {
		return cmp.Compare(k.phase, o.phase)
	}
	if k.rank != o.rank {
		return cmp.Compare(k.rank, o.rank)
	}
	if c := cmp.Compare(k.scope, o.scope); c != 0 {
		return c
	}
	if c := k.addr.Compare(o.addr); c != 0 {
		return c
	}
	if k.num != o.num {
		return cmp.Compare(k.num, o.num)
	}
	return cmp.Compare(k.name, o.name)
}

// phase orders the groups of changes.
func phase(a Action) int {
	switch a {
	case Delete:
		return 1
	case Conflict:
		return 2
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
