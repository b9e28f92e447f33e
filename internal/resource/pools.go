package resource

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// AddressScope is a Neutron address scope: the routing domain of the
// subnet pools of one namespace and IP version. Specs do not declare
// scopes: each namespace a site's pools use gets one per IP version, named
// like the namespace, so that the pools of one namespace (a routing
// domain, as in Nautobot) cannot overlap in Neutron either.
type AddressScope struct {
	M         Meta   `json:"meta"`
	Namespace string `json:"namespace"`
	IPVersion int    `json:"ip_version"`
	Site      string `json:"site,omitempty"`
	Shared    bool   `json:"shared"`
}

// AddressScopeKey is the natural key name of the scope of namespace for
// IP version v: "a11/v4". One name holds a scope of each version.
func AddressScopeKey(namespace string, v int) string {
	return namespace + "/v" + strconv.Itoa(v)
}

func (o *AddressScope) Kind() Kind { return KindAddressScope }
func (o *AddressScope) Key() Key {
	return Key{KindAddressScope, AddressScopeKey(o.Namespace, o.IPVersion)}
}
func (o *AddressScope) Meta() *Meta { return &o.M }
func (o *AddressScope) Diff(cur Object) []FieldDiff {
	c := cur.(*AddressScope)
	var d differ
	d.boolean("shared", c.Shared, o.Shared)
	return d
}
func (o *AddressScope) References() []Reference { return nil }
func (o *AddressScope) Identity() Identity {
	return Identity{Kind: KindAddressScope, Name: o.Namespace, Num: uint32(o.IPVersion)}
}

// Neutron keeps nothing of a scope unique but its id.
func (o *AddressScope) UniqueKeys() []UniqueKey { return nil }

// SubnetPool is a Neutron subnet pool: prefixes Neutron allocates tenant
// subnets from, in the address scope of its namespace.
type SubnetPool struct {
	M         Meta   `json:"meta"`
	Name      string `json:"name"`
	Site      string `json:"site,omitempty"`
	Namespace string `json:"namespace"`
	// Prefixes are kept as Neutron keeps them: sorted and merged, adjacent
	// halves joined and prefixes inside others left out.
	Prefixes []netip.Prefix `json:"prefixes"`
	// Prefix lengths of the subnets Neutron allocates: 0 leaves the
	// choice to Neutron.
	DefaultPrefixLen int    `json:"default_prefixlen,omitempty"`
	MinPrefixLen     int    `json:"min_prefixlen,omitempty"`
	MaxPrefixLen     int    `json:"max_prefixlen,omitempty"`
	Shared           bool   `json:"shared"`
	Description      string `json:"description,omitempty"`
}

// IPVersion is 4 or 6, that of the pool's prefixes; 0 without prefixes.
func (o *SubnetPool) IPVersion() int {
	if len(o.Prefixes) == 0 {
		return 0
	}
	if o.Prefixes[0].Addr().Is4() {
		return 4
	}
	return 6
}

// Scope is the key of the pool's address scope.
func (o *SubnetPool) Scope() Key {
	return Key{KindAddressScope, AddressScopeKey(o.Namespace, o.IPVersion())}
}

func (o *SubnetPool) Kind() Kind  { return KindSubnetPool }
func (o *SubnetPool) Key() Key    { return Key{KindSubnetPool, o.Name} }
func (o *SubnetPool) Meta() *Meta { return &o.M }
func (o *SubnetPool) Diff(cur Object) []FieldDiff {
	c := cur.(*SubnetPool)
	var d differ
	d.str("namespace", c.Namespace, o.Namespace)
	d.str("prefixes", PrefixesString(c.Prefixes), PrefixesString(o.Prefixes))
	d.num("default_prefixlen", uint64(c.DefaultPrefixLen), uint64(o.DefaultPrefixLen))
	d.num("min_prefixlen", uint64(c.MinPrefixLen), uint64(o.MinPrefixLen))
	d.num("max_prefixlen", uint64(c.MaxPrefixLen), uint64(o.MaxPrefixLen))
	d.boolean("shared", c.Shared, o.Shared)
	d.str("description", c.Description, o.Description)
	return d
}
func (o *SubnetPool) References() []Reference {
	if len(o.Prefixes) == 0 {
		return nil
	}
	return []Reference{{Field: "namespace", Kind: KindAddressScope, Name: o.Scope().Name}}
}
func (o *SubnetPool) Identity() Identity { return Identity{Kind: KindSubnetPool, Name: o.Name} }

// Prefixes a pool holds by hand are found by the pool's writer: Neutron
// keeps pool prefixes unique only within one address scope.
func (o *SubnetPool) UniqueKeys() []UniqueKey { return nil }

// PrefixesString is prefixes as a plan shows them: "10.0.0.0/23,10.2.0.0/24".
func PrefixesString(ps []netip.Prefix) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, ",")
}

// MergePrefixes is ps as Neutron stores a pool's prefixes: masked, sorted,
// without prefixes inside others, and sibling halves joined into their
// parent until none are left.
func MergePrefixes(ps []netip.Prefix) []netip.Prefix {
	out := make([]netip.Prefix, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.Masked())
	}
	for {
		slices.SortFunc(out, func(a, b netip.Prefix) int {
			if c := a.Addr().Compare(b.Addr()); c != 0 {
				return c
			}
			return a.Bits() - b.Bits()
		})
		kept := out[:0]
		for _, p := range out {
			if n := len(kept); n > 0 && kept[n-1].Contains(p.Addr()) && kept[n-1].Bits() <= p.Bits() {
				continue
			}
			kept = append(kept, p)
		}
		out = kept
		joined := false
		for i := 0; i+1 < len(out); i++ {
			a, b := out[i], out[i+1]
			if a.Bits() != b.Bits() || a.Bits() == 0 {
				continue
			}
			parent := netip.PrefixFrom(a.Addr(), a.Bits()-1).Masked()
			if parent.Addr() == a.Addr() && parent.Contains(b.Addr()) {
				out[i] = parent
				out = slices.Delete(out, i+1, i+2)
				joined = true
			}
		}
		if !joined {
			return out
		}
	}
}

// Covers reports whether p lies inside one of ps.
func Covers(ps []netip.Prefix, p netip.Prefix) bool {
	for _, q := range ps {
		if q.Bits() <= p.Bits() && q.Contains(p.Addr()) {
			return true
		}
	}
	return false
}
