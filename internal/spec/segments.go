package spec

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ipsync/ipsync/internal/resource"
)

// checkSegmentRanges reports ranges that overlap another of the same site,
// network type and (for vlan) physical network: Neutron would hand the
// same segment id to two ranges. A range without a site is created in every
// site's Neutron, so it is checked against each site's own ranges as well.
func (c *checker) checkSegmentRanges() {
	type entry struct {
		*resource.SegmentRange
		obj int
	}
	rs := make([]entry, len(c.segIdx))
	sites := []string{""}
	for k, i := range c.segIdx {
		rs[k] = entry{c.objs[i].(*resource.SegmentRange), i}
		sites = append(sites, rs[k].Site)
	}
	slices.Sort(sites)
	sites = slices.Compact(sites)
	slices.SortFunc(rs, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.NetworkType, b.NetworkType), cmp.Compare(a.PhysicalNetwork, b.PhysicalNetwork),
			cmp.Compare(a.Minimum, b.Minimum), cmp.Compare(a.Maximum, b.Maximum), cmp.Compare(a.Site, b.Site))
	})
	// One sweep per site over what that site's Neutron receives: its own
	// ranges and the siteless ones. Two siteless ranges meet in every
	// sweep; only the siteless sweep reports them.
	for _, site := range sites {
		var open entry // the range reaching highest so far in this pool of ids
		for _, s := range rs {
			if s.Site != site && s.Site != "" {
				continue
			}
			if open.SegmentRange == nil || open.NetworkType != s.NetworkType || open.PhysicalNetwork != s.PhysicalNetwork {
				open = s
				continue
			}
			if s.Minimum <= open.Maximum && s.Name != open.Name && (site == "" || s.Site != "" || open.Site != "") {
				c.report(s.obj, "minimum", fmt.Sprintf("range %d-%d overlaps segment range %s (%d-%d, declared at %s) of the same %s",
					s.Minimum, s.Maximum, open.Name, open.Minimum, open.Maximum, open.M.Source, pool(site, s.SegmentRange, open.SegmentRange)))
			}
			if s.Maximum > open.Maximum {
				open = s
			}
		}
	}
}

// pool names what two overlapping ranges share, for the message.
func pool(site string, a, b *resource.SegmentRange) string {
	where := "site " + site
	switch {
	case a.Site == "" && b.Site == "":
		where = "every site (neither names a site)"
	case a.Site == "" || b.Site == "":
		where = "site " + site + " (a range without a site applies to every site)"
	}
	if a.NetworkType == resource.NetworkVLAN {
		return fmt.Sprintf("%s and physical_network %s", where, a.PhysicalNetwork)
	}
	return fmt.Sprintf("%s and network_type %s", where, a.NetworkType)
}
