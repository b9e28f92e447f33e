package sitesync

import (
	"fmt"

	"github.com/ipsync/ipsync/internal/drift"
	"github.com/ipsync/ipsync/internal/neutron"
)

// Leaks turns the mapping report into drift leaks an operator can act on;
// server names the target ("Nautobot", "NetBox").
func Leaks(r neutron.Report, server string) []drift.Leak {
	var out []drift.Leak
	for _, u := range r.UnknownGroups {
		out = append(out, drift.Leak{Kind: "segment", Key: segmentKey(u.SegmentRef),
			Message: fmt.Sprintf("physical network %q maps to VLAN group %q, which %s does not have: its VLAN is not synced, its subnets' prefixes and IPs are, without a VLAN (create the group, or map the physical network in physnet_groups)", u.PhysicalNetwork, u.Group, server)})
	}
	for _, u := range r.UnusedSegments {
		out = append(out, drift.Leak{Kind: "segment", Key: segmentKey(u), Message: "VLAN segment with no ports (a leaked tenant network?): its VLAN is synced, since Neutron holds its VID either way"})
	}
	for _, d := range r.Duplicates {
		out = append(out, drift.Leak{Kind: string(d.Key.Kind), Key: d.Key.Name, Message: fmt.Sprintf("two Neutron records map to this object: kept %s, dropped %s", d.Kept, d.Dropped)})
	}
	for _, sk := range r.Skipped {
		out = append(out, drift.Leak{Kind: sk.Kind, Key: sk.ID, Message: "not synced: " + sk.Reason})
	}
	return out
}

func segmentKey(s neutron.SegmentRef) string {
	name := s.NetworkName
	if name == "" {
		name = s.NetworkID
	}
	return fmt.Sprintf("%s %s:%s:%d", name, s.NetworkType, s.PhysicalNetwork, s.SegmentationID)
}
