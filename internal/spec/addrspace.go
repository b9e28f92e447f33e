package spec

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"sort"

	"github.com/ipsync/ipsync/internal/resource"
)

// space is one namespace's prefixes, sorted by address, and its hosts.
type space struct {
	name     string
	declared bool
	prefixes []prefixNode
	hosts    map[netip.Addr]int // host -> first object declaring it
}

// prefixNode is a prefix in its namespace's sorted list.
type prefixNode struct {
	p       netip.Prefix
	network bool
	pool    bool
	obj     int // index into checker.objs
	// parent is the index (in the sorted list) of the smallest prefix
	// holding this one, or -1.
	parent int
}

// checkAddressSpace sorts each namespace's prefixes by address once, then
// answers every duplicate, overlap and containment question from that
// order, so that a hundred thousand addresses cost n log n, not n².
func (c *checker) checkAddressSpace() {
	spaces := map[string]*space{}
	var last *space
	// of returns the space of ns; specs list the objects of a namespace
	// together, so the last one answers most calls without hashing.
	of := func(ns string) *space {
		if last == nil || last.name != ns {
			if last = spaces[ns]; last == nil {
				last = &space{name: ns, declared: c.namespaces[ns]}
				spaces[ns] = last
			}
		}
		return last
	}
	for _, i := range c.prefixIdx {
		p := c.objs[i].(*resource.Prefix)
		s := of(p.Namespace)
		if !s.declared {
			c.undeclaredNamespace(i, p.Namespace)
		}
		if p.VLAN != "" && !c.vlans[p.VLAN] && c.complete {
			c.report(i, "vlan", fmt.Sprintf("vlan %s is not declared in the spec", p.VLAN))
		}
		s.prefixes = append(s.prefixes, prefixNode{p: p.Prefix, network: p.Type == resource.PrefixNetwork, pool: p.Type == resource.PrefixPool, obj: i})
	}
	// Size each namespace's host map once, rather than growing it through
	// a dozen rehashes.
	nHosts := map[*space]int{}
	for _, i := range c.ipIdx {
		nHosts[of(c.objs[i].(*resource.IPAddress).Namespace)]++
	}
	for _, s := range spaces {
		s.hosts = make(map[netip.Addr]int, nHosts[s])
		slices.SortFunc(s.prefixes, func(a, b prefixNode) int {
			return cmp.Or(a.p.Addr().Compare(b.p.Addr()), cmp.Compare(a.p.Bits(), b.p.Bits()), cmp.Compare(a.obj, b.obj))
		})
		c.checkDuplicatePrefixes(s.prefixes)
		linkParents(s.prefixes)
		c.checkNetworkOverlaps(s.name, s.prefixes)
	}
	for _, i := range c.ipIdx {
		ip := c.objs[i].(*resource.IPAddress)
		s := of(ip.Namespace)
		a := ip.Address.Addr()
		if j, dup := s.hosts[a]; dup {
			c.duplicate(i, j)
			continue
		}
		s.hosts[a] = i
		if !s.declared {
			c.undeclaredNamespace(i, ip.Namespace)
			continue // its prefixes, if any, are not the ones meant
		}
		c.checkInPrefix(i, ip, s.prefixes)
	}
}

// checkDuplicatePrefixes reports each repeat of a prefix against its first
// declaration; sorting put them next to each other, first first.
func (c *checker) checkDuplicatePrefixes(nodes []prefixNode) {
	for j := 1; j < len(nodes); j++ {
		if first := j - 1; nodes[first].p == nodes[j].p {
			for first > 0 && nodes[first-1].p == nodes[j].p {
				first--
			}
			c.duplicate(nodes[j].obj, nodes[first].obj)
		}
	}
}

// linkParents sets each node's parent. Prefixes never partly overlap, so in
// address order the prefixes holding a node are exactly the stack of those
// not yet closed.
func linkParents(nodes []prefixNode) {
	var stack []int
	for j := range nodes {
		for len(stack) > 0 && !nodes[stack[len(stack)-1]].p.Contains(nodes[j].p.Addr()) {
			stack = stack[:len(stack)-1]
		}
		nodes[j].parent = -1
		if len(stack) > 0 {
			nodes[j].parent = stack[len(stack)-1]
		}
		stack = append(stack, j)
	}
}

// checkNetworkOverlaps reports network prefixes inside other networks;
// containers and pools may hold networks, and identical prefixes are
// reported as duplicates already.
func (c *checker) checkNetworkOverlaps(ns string, nodes []prefixNode) {
	open := -1 // the outermost network still open in address order
	for j, n := range nodes {
		if !n.network {
			continue
		}
		if open >= 0 && nodes[open].p.Contains(n.p.Addr()) {
			if o := nodes[open]; o.p != n.p {
				c.report(n.obj, "prefix", fmt.Sprintf("network %s overlaps network %s (declared at %s) in namespace %s; only container and pool prefixes may hold other prefixes",
					n.p, o.p, c.objs[o.obj].Meta().Source, ns))
			}
			continue
		}
		open = j
	}
}

// checkInPrefix reports an IP outside every prefix of its namespace, or
// equal to the network or broadcast address of the smallest one holding
// it, unless that is a pool: Nautobot counts every address of a pool as
// usable (a range handed out from inside a larger network), as it counts
// both of a /31.
func (c *checker) checkInPrefix(i int, ip *resource.IPAddress, nodes []prefixNode) {
	a := ip.Address.Addr()
	j := sort.Search(len(nodes), func(k int) bool { return nodes[k].p.Addr().Compare(a) > 0 }) - 1
	for j >= 0 && !nodes[j].p.Contains(a) {
		j = nodes[j].parent
	}
	if j < 0 {
		c.report(i, "address", fmt.Sprintf("%s is outside every prefix of namespace %s", a, ip.Namespace))
		return
	}
	p := nodes[j].p
	if !a.Is4() || p.Bits() >= 31 || nodes[j].pool {
		return // IPv6 has no broadcast; /31, /32 and pools use every address
	}
	switch a {
	case p.Addr():
		c.report(i, "address", fmt.Sprintf("%s is the network address of prefix %s (declared at %s)", a, p, c.objs[nodes[j].obj].Meta().Source))
	case lastAddr(p):
		c.report(i, "address", fmt.Sprintf("%s is the broadcast address of prefix %s (declared at %s)", a, p, c.objs[nodes[j].obj].Meta().Source))
	}
}

// lastAddr is the highest address of an IPv4 prefix.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().As4()
	host := uint32(1)<<(32-p.Bits()) - 1
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]) | host
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}
