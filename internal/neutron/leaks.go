package neutron

import (
	"cmp"
	"slices"
	"time"
)

// The binding:vif_type of a port no driver has bound: it holds no segment.
const (
	VIFUnbound       = "unbound"
	VIFBindingFailed = "binding_failed"
)

// DefaultLeakGrace is how long a segment of a network with ports must have
// gone unused before it is reported. A bare-metal node's port stays
// unbound while the node deploys (tens of minutes), and a segment is
// allocated a moment before the binding that holds it is recorded: an hour
// lets both settle, and a leak costs nothing in the meantime.
const DefaultLeakGrace = time.Hour

// bound reports whether a port's binding holds a segment; an empty
// vif_type is a binding Neutron did not show, not an unbound port.
func bound(vifType string) bool {
	return vifType != "" && vifType != VIFUnbound && vifType != VIFBindingFailed
}

// leakState is what the ports of one network say of its VLAN segments.
type leakState struct {
	// hasPorts: the network has a port besides DHCP's. A network without
	// any is reported at once, as it always was: nothing is pending on it.
	hasPorts bool
	// all: a port uses every segment (a bound port whose physical network
	// is unknown, or one whose binding Neutron did not show, outside the
	// segments of a routed network's subnets).
	all bool
	// lastUnbound is when an unbound port of the network last changed: it
	// may have just left a segment, or be about to bind to one.
	lastUnbound time.Time
}

// findLeaks reports the VLAN segments no bound port of their network uses
// on their physical network, and the ids ranges hold that no segment
// holds. A bound port uses the segments of its routed subnets and those on
// the physical networks its binding reaches (Port.Physnets); a port
// Neutron did not show the binding of counts as it did before bindings
// were read: its routed subnets' segments, else all of them. Segments of a
// network with ports are reported once they and the network's unbound
// ports have been still for the grace period: a port unbinding, or a
// binding under way, is not a leak.
func (m *mapper) findLeaks(s *Snapshot) {
	states := make(map[*netInfo]*leakState, len(m.nets))
	used := map[*segInfo]bool{}
	for i := range s.Ports {
		p := &s.Ports[i]
		ni := m.nets[p.NetworkID]
		if ni == nil || p.DeviceOwner == DeviceOwnerDHCP {
			continue
		}
		st := states[ni]
		if st == nil {
			st = &leakState{}
			states[ni] = st
		}
		st.hasPorts = true
		if p.VIFType != "" && !bound(p.VIFType) {
			st.lastUnbound = latest(st.lastUnbound, p.UpdatedAt)
			continue
		}
		known := len(p.Physnets) > 0 && p.VIFType != ""
		for _, f := range p.FixedIPs {
			if sn, ok := m.subnets[f.SubnetID]; ok && sn.segmentID != "" {
				for _, si := range ni.vlans {
					if si.seg.ID == sn.segmentID {
						used[si] = true
					}
				}
				known = true
			}
		}
		if p.VIFType != "" {
			for _, si := range ni.vlans {
				if slices.Contains(p.Physnets, si.seg.PhysicalNetwork) {
					used[si] = true
				}
			}
		}
		if !known {
			st.all = true
		}
	}
	now, grace := m.leakClock(s)
	for _, ni := range m.order {
		st := states[ni]
		if st != nil && st.all {
			continue
		}
		for _, si := range ni.vlans {
			if used[si] {
				continue
			}
			// Without timestamps (a snapshot from before they were read)
			// there is nothing to wait from.
			if st != nil {
				if since := latest(si.seg.CreatedAt, st.lastUnbound); !since.IsZero() && now.Sub(since) < grace {
					continue
				}
			}
			m.report.UnusedSegments = append(m.report.UnusedSegments, ref(ni, si.seg))
		}
	}
	m.reportUnheld(s.Ranges)
}

// leakClock is the rule's now, the read's start (else the newest time the
// records carry: no later than the read, so the grace is never cut short),
// and its grace period.
func (m *mapper) leakClock(s *Snapshot) (time.Time, time.Duration) {
	grace := m.cfg.LeakGrace
	switch {
	case grace == 0:
		grace = DefaultLeakGrace
	case grace < 0:
		grace = 0
	}
	now := s.ReadAt
	if now.IsZero() {
		for _, p := range s.Ports {
			now = latest(now, p.UpdatedAt)
		}
		for _, sg := range s.Segments {
			now = latest(now, sg.CreatedAt)
		}
	}
	return now, grace
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// reportUnheld reports the ids of each range Neutron holds allocated that
// no segment holds: left behind by a segment deleted half-way, they are
// lost to the range until someone frees them.
func (m *mapper) reportUnheld(ranges []SegmentRange) {
	for _, r := range ranges {
		if len(r.Unheld) == 0 {
			continue
		}
		m.report.UnheldAllocations = append(m.report.UnheldAllocations, UnheldAllocation{RangeID: r.ID, RangeName: r.Name,
			NetworkType: r.NetworkType, PhysicalNetwork: r.PhysicalNetwork, SegmentationIDs: slices.Clone(r.Unheld)})
	}
	slices.SortFunc(m.report.UnheldAllocations, func(a, b UnheldAllocation) int { return cmp.Compare(a.RangeID, b.RangeID) })
}
