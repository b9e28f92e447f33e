// Package rangehealth says how full the ranges ids are handed out from
// are, and how fast they fill: Neutron's segment ranges (VLAN ids per
// physical network, VNIs) and the target's VLAN groups. It is pure: the
// adapters count, the agent keeps the history and the clock.
package rangehealth

import (
	"cmp"
	"slices"
)

// Kinds of range besides Neutron's network types (vlan, vxlan, geneve),
// which name its segment ranges.
const KindVLANGroup = "vlan_group"

// DefaultThreshold is the used ratio from which a range is shown as filling
// up: at 80% a VLAN range of 100 ids still has 20, days to weeks at the
// rates tenant networks are made, time to add a range.
const DefaultThreshold = 0.8

// Usage is how many of a range's ids are taken at one time.
type Usage struct {
	// Kind is the network type of a Neutron segment range (vlan, vxlan,
	// geneve), or vlan_group for the target's VLAN group.
	Kind string `json:"kind"`
	// Range names it: the segment range's name (its physical network and
	// bounds where it has none, as Neutron's default ranges), the group's.
	Range string `json:"range"`
	Size  int    `json:"size"`
	Used  int    `json:"used"`
}

// Free is how many ids are left.
func (u Usage) Free() int { return max(u.Size-u.Used, 0) }

// Ratio is the share of ids taken, 0 for an empty range.
func (u Usage) Ratio() float64 {
	if u.Size <= 0 {
		return 0
	}
	return float64(u.Used) / float64(u.Size)
}

type key struct{ kind, name string }

func (u Usage) key() key { return key{u.Kind, u.Range} }

// Sort orders usages by kind and name, the order every output lists them.
func Sort(us []Usage) {
	slices.SortFunc(us, func(a, b Usage) int { return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Range, b.Range)) })
}
