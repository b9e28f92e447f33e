package sitesync

import (
	"slices"

	"github.com/ipsync/ipsync/internal/neutron"
)

// replace is s with the networks ids as fresh has them (gone if absent).
func replace(s *neutron.Snapshot, ids []string, fresh *neutron.Snapshot) *neutron.Snapshot {
	in := set(ids)
	return &neutron.Snapshot{
		Networks: append(filter(s.Networks, func(n neutron.Network) bool { return !in[n.ID] }), fresh.Networks...),
		Segments: append(filter(s.Segments, func(x neutron.Segment) bool { return !in[x.NetworkID] }), fresh.Segments...),
		Subnets:  append(filter(s.Subnets, func(x neutron.Subnet) bool { return !in[x.NetworkID] }), fresh.Subnets...),
		Ports:    append(filter(s.Ports, func(x neutron.Port) bool { return !in[x.NetworkID] }), fresh.Ports...),
		Ranges:   s.Ranges,
	}
}

func set(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

func filter[T any](xs []T, keep func(T) bool) []T {
	return slices.DeleteFunc(slices.Clone(xs), func(x T) bool { return !keep(x) })
}
