package spec

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ipsync/ipsync/internal/resource"
)

// checkSegmentRanges reports ranges that overlap another of the same site,
// network type and (for vlan) physical network: Neutron would hand the
// same segment id to two ranges.
func (c *checker) checkSegmentRanges() {
	type entry struct {
		*resource.SegmentRange
		obj int
	}
	rs := make([]entry, len(c.segIdx))
	for k, i := range c.segIdx {
		rs[k] = entry{c.objs[i].(*resource.SegmentRange), i}
	}
	slices.SortFunc(rs, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.Site, b.Site), cmp.Compare(a.NetworkType, b.NetworkType),
			cmp.Compare(a.PhysicalNetwork, b.PhysicalNetwork), cmp.Compare(a.Minimum, b.Minimum), cmp.Compare(a.Maximum, b.Maximum))
	})
	var open entry // the range reaching highest so far in this pool of ids
	for _, s := range rs {
		if open.SegmentRange == nil || open.Site != s.Site || open.NetworkType != s.NetworkType || open.PhysicalNetwork != s.PhysicalNetwork {
			open = s
			continue
		}
		if s.Minimum <= open.Maximum && s.Name != open.Name {
			c.report(s.obj, "minimum", fmt.Sprintf("range %d-%d overlaps segment range %s (%d-%d, declared at %s) of the same %s",
				s.Minimum, s.Maximum, open.Name, open.Minimum, open.Maximum, open.M.Source, pool(s.SegmentRange)))
		}
		if s.Maximum > open.Maximum {
			open = s
		}
	}
}

// pool names what two overlapping ranges share, for the message.
func pool(s *resource.SegmentRange) string {
	site := "site " + s.Site
	if s.Site == "" {
		site = "site (none)"
	}
	if s.NetworkType == resource.NetworkVLAN {
		return fmt.Sprintf("%s and physical_network %s", site, s.PhysicalNetwork)
	}
	return fmt.Sprintf("%s and network_type %s", site, s.NetworkType)
}
