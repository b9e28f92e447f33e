package neutron

import (
	"slices"
	"strings"

	"github.com/ipsync/ipsync/internal/resource"
)

// PoolObjects is what a site's Neutron should hold for pools, the spec's
// pools of that site: the pools, each with site set, and the address
// scope of each namespace and IP version they use. A scope is shared when
// one of its pools is: Neutron puts no shared pool in a private scope.
func PoolObjects(site string, pools []*resource.SubnetPool) []resource.Object {
	var out []resource.Object
	scopes := map[resource.Key]*resource.AddressScope{}
	var order []resource.Key
	for _, p := range pools {
		if p.Site != "" && p.Site != site {
			continue
		}
		q := resource.Clone(p).(*resource.SubnetPool)
		q.Site = site
		out = append(out, q)
		if len(q.Prefixes) == 0 {
			continue
		}
		k := q.Scope()
		s, ok := scopes[k]
		if !ok {
			s = &resource.AddressScope{M: resource.Meta{Owner: q.M.Owner, Source: q.M.Source}, Namespace: q.Namespace,
				IPVersion: q.IPVersion(), Site: site}
			scopes[k] = s
			order = append(order, k)
		}
		s.Shared = s.Shared || q.Shared
	}
	slices.SortFunc(order, func(a, b resource.Key) int { return strings.Compare(a.Name, b.Name) })
	for _, k := range order {
		out = append(out, scopes[k])
	}
	return out
}
