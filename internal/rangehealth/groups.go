package rangehealth

import "github.com/ipsync/ipsync/internal/resource"

// FromGroups counts, for each VLAN group of objs with a range, the VIDs of
// its range that VLANs in objs hold: the target's view, whoever owns the
// VLANs (static ones take VIDs as surely as Neutron's). A group without a
// range takes any VID and has nothing to run out of.
func FromGroups(objs []resource.Object) []Usage {
	vids := map[string]map[uint16]bool{}
	var groups []*resource.VLANGroup
	for _, o := range objs {
		switch o := o.(type) {
		case *resource.VLANGroup:
			if len(o.Range) > 0 {
				groups = append(groups, o)
			}
		case *resource.VLAN:
			if vids[o.Group] == nil {
				vids[o.Group] = map[uint16]bool{}
			}
			vids[o.Group][o.VID] = true
		}
	}
	out := make([]Usage, 0, len(groups))
	for _, g := range groups {
		u := Usage{Kind: KindVLANGroup, Range: g.Name}
		for _, r := range g.Range {
			u.Size += int(r.Hi) - int(r.Lo) + 1
		}
		for vid := range vids[g.Name] {
			if g.Range.Contains(vid) {
				u.Used++
			}
		}
		out = append(out, u)
	}
	Sort(out)
	return out
}
