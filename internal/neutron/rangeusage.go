package neutron

import (
	"fmt"
	"slices"

	"github.com/ipsync/ipsync/internal/rangehealth"
)

// RangeUsage counts, for each segment range of s, the ids its network
// type's segments hold (on its physical network, for VLAN), and those it
// holds allocated that no segment holds (Unheld, as the last whole read
// found them). Segments follow every sync, narrowed ones included, where
// a range's free list is read only with a whole read; and a VNI range of
// millions of ids is counted without listing them. Segments of HA
// routers' networks are segments like any other, so they count; Neutron
// has no other per-router segment or VNI.
func RangeUsage(s *Snapshot) []rangehealth.Usage {
	if len(s.Ranges) == 0 {
		return nil
	}
	taken := map[[2]string][]int{}
	add := func(sg Segment) {
		if sg.SegmentationID == 0 {
			return
		}
		k := [2]string{sg.NetworkType, sg.PhysicalNetwork}
		taken[k] = append(taken[k], sg.SegmentationID)
	}
	if len(s.Segments) > 0 {
		for _, sg := range s.Segments {
			add(sg)
		}
	} else {
		for _, n := range s.Networks {
			for _, sg := range n.Segments {
				add(sg)
			}
		}
	}
	for k, ids := range taken {
		slices.Sort(ids)
		taken[k] = slices.Compact(ids)
	}
	names := map[string]int{}
	for _, r := range s.Ranges {
		names[rangeLabel(r)]++
	}
	out := make([]rangehealth.Usage, 0, len(s.Ranges))
	for _, r := range s.Ranges {
		if r.Maximum < r.Minimum {
			continue
		}
		ids := taken[[2]string{r.NetworkType, r.PhysicalNetwork}]
		lo, _ := slices.BinarySearch(ids, r.Minimum)
		hi, _ := slices.BinarySearch(ids, r.Maximum+1)
		size := r.Maximum - r.Minimum + 1
		label := rangeLabel(r)
		if names[label] > 1 {
			label += " " + r.ID
		}
		out = append(out, rangehealth.Usage{Kind: r.NetworkType, Range: label, Size: size, Used: min(hi-lo+len(r.Unheld), size)})
	}
	rangehealth.Sort(out)
	return out
}

// rangeLabel names a range by its name, else (Neutron's default ranges
// have none) by where it is: "physnet1:100-200", "1-1000".
func rangeLabel(r SegmentRange) string {
	if r.Name != "" {
		return r.Name
	}
	where := fmt.Sprintf("%d-%d", r.Minimum, r.Maximum)
	if r.PhysicalNetwork == "" {
		return where
	}
	return r.PhysicalNetwork + ":" + where
}
