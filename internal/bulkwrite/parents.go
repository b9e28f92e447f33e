package bulkwrite

import (
	"net/netip"
	"slices"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// netKey is a prefix in its namespace.
type netKey struct {
	ns  string
	net netip.Prefix
}

// parents tracks the prefixes an Apply creates, so that an IP address
// whose parent prefix was not written is not sent either: Nautobot would
// refuse it for want of a parent, or file it under a wider prefix, and on
// any server the address would stand outside the network planned for it.
type parents struct {
	creating map[netKey]bool
	bits     map[string][]int // prefix lengths created per namespace, longest first
	written  map[netKey]bool  // guarded by the run's mu
}

func newParents(writes []*plan.Change) *parents {
	p := &parents{creating: map[netKey]bool{}, bits: map[string][]int{}, written: map[netKey]bool{}}
	for _, ch := range writes {
		if x, ok := ch.Desired.(*resource.Prefix); ok && ch.Action == plan.Create {
			k := netKey{x.Namespace, x.Prefix.Masked()}
			p.creating[k] = true
			if b := k.net.Bits(); !slices.Contains(p.bits[k.ns], b) {
				p.bits[k.ns] = append(p.bits[k.ns], b)
			}
		}
	}
	for ns := range p.bits {
		slices.SortFunc(p.bits[ns], func(a, b int) int { return b - a })
	}
	return p
}

// created records a prefix create the server took.
func (p *parents) created(ch *plan.Change) {
	if x, ok := ch.Desired.(*resource.Prefix); ok && ch.Action == plan.Create {
		p.written[netKey{x.Namespace, x.Prefix.Masked()}] = true
	}
}

// missing is the prefix created by this Apply that would be the parent
// of the IP address ch creates, when it was not written.
func (p *parents) missing(ch *plan.Change) (resource.Key, bool) {
	ip, ok := ch.Desired.(*resource.IPAddress)
	if !ok || ch.Action != plan.Create {
		return resource.Key{}, false
	}
	a := ip.Address.Addr()
	for _, b := range p.bits[ip.Namespace] {
		if b > a.BitLen() {
			continue
		}
		net, _ := a.Prefix(b)
		k := netKey{ip.Namespace, net}
		if !p.creating[k] {
			continue
		}
		if p.written[k] {
			return resource.Key{}, false
		}
		return resource.Key{Kind: resource.KindPrefix, Name: resource.PrefixKey(k.ns, k.net)}, true
	}
	return resource.Key{}, false
}
