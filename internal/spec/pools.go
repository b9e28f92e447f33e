package spec

import (
	"fmt"
	"net/netip"

	"github.com/ipsync/ipsync/internal/resource"
)

// decodeSubnetPool reads a subnet pool. Its prefixes are kept merged, as
// Neutron keeps them, so that a plan compares like with like.
func decodeSubnetPool(r *record) resource.Object {
	p := &resource.SubnetPool{
		Name: r.str("name"), Site: r.str("site"), Namespace: r.strOr("namespace", DefaultNamespace),
		DefaultPrefixLen: int(r.num("default_prefixlen", 1, 128)), MinPrefixLen: int(r.num("min_prefixlen", 1, 128)),
		MaxPrefixLen: int(r.num("max_prefixlen", 1, 128)),
		Shared:       r.boolean("shared", false), Description: r.str("description"),
	}
	var ps []netip.Prefix
	for _, s := range r.set("prefixes") {
		n, err := netip.ParsePrefix(s)
		switch {
		case err != nil:
			r.failField("prefixes", fmt.Sprintf("invalid CIDR %q: %s", s, parseErr(err, s)))
		case n.Masked() != n:
			r.failField("prefixes", fmt.Sprintf("%s: host bits set, did you mean %s", s, n.Masked()))
		case len(ps) > 0 && ps[0].Addr().Is4() != n.Addr().Is4():
			r.failField("prefixes", fmt.Sprintf("%s and %s: a pool holds prefixes of one IP version", ps[0], n))
		default:
			ps = append(ps, n)
		}
	}
	if r.ok("prefixes") && len(ps) == 0 && !r.reported("prefixes") {
		r.failField("prefixes", "a pool needs at least one prefix")
	}
	p.Prefixes = resource.MergePrefixes(ps)
	if len(ps) > 0 {
		bits := ps[0].Addr().BitLen()
		for _, f := range []struct {
			name string
			v    int
		}{{"default_prefixlen", p.DefaultPrefixLen}, {"min_prefixlen", p.MinPrefixLen}, {"max_prefixlen", p.MaxPrefixLen}} {
			if r.ok(f.name) && f.v > bits {
				r.failField(f.name, fmt.Sprintf("%d is longer than an IPv%d prefix can be (%d)", f.v, p.IPVersion(), bits))
			}
		}
	}
	lens := []struct {
		name string
		v    int
	}{{"min_prefixlen", p.MinPrefixLen}, {"default_prefixlen", p.DefaultPrefixLen}, {"max_prefixlen", p.MaxPrefixLen}}
	for i, lo := range lens {
		for _, hi := range lens[i+1:] {
			if lo.v > 0 && hi.v > 0 && lo.v > hi.v && !r.reported(lo.name) && !r.reported(hi.name) {
				r.failField(lo.name, fmt.Sprintf("%s %d is greater than %s %d", lo.name, lo.v, hi.name, hi.v))
			}
		}
	}
	return p
}

// checkSubnetPools reports pools of one site whose prefixes overlap:
// Neutron would allocate one subnet from both. A pool without a site goes
// to every site, so it meets the pools of each.
func (c *checker) checkSubnetPools() {
	for k, i := range c.poolIdx {
		a := c.objs[i].(*resource.SubnetPool)
		for _, j := range c.poolIdx[:k] {
			b := c.objs[j].(*resource.SubnetPool)
			if a.Site != "" && b.Site != "" && a.Site != b.Site {
				continue
			}
			if pa, pb, ok := overlap(a.Prefixes, b.Prefixes); ok {
				where := "site " + a.Site
				if a.Site == "" || b.Site == "" {
					where = "every site it goes to (a pool without a site goes to every site)"
				}
				c.report(i, "prefixes", fmt.Sprintf("%s overlaps %s of subnet pool %s (declared at %s) in %s", pa, pb, b.Name, b.M.Source, where))
			}
		}
	}
}

func overlap(as, bs []netip.Prefix) (netip.Prefix, netip.Prefix, bool) {
	for _, a := range as {
		for _, b := range bs {
			if a.Overlaps(b) {
				return a, b, true
			}
		}
	}
	return netip.Prefix{}, netip.Prefix{}, false
}
