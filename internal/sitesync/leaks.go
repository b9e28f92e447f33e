package sitesync

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

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
		out = append(out, drift.Leak{Kind: "segment", Key: segmentKey(u), Message: fmt.Sprintf("VLAN segment that no bound port of its network uses on physical network %q (a leaked tenant segment?): its VLAN is synced, since Neutron holds its VID either way; delete the segment in Neutron if nothing will bind there again", u.PhysicalNetwork)})
	}
	out = append(out, unheldLeaks(r.UnheldAllocations)...)
	for _, d := range r.Duplicates {
		out = append(out, drift.Leak{Kind: string(d.Key.Kind), Key: d.Key.Name, Message: fmt.Sprintf("two Neutron records map to this object: kept %s, dropped %s", d.Kept, d.Dropped)})
	}
	for _, sk := range r.Skipped {
		out = append(out, drift.Leak{Kind: sk.Kind, Key: sk.ID, Message: "not synced: " + sk.Reason})
	}
	return out
}

// unheldLeaks are the ids ranges hold that no segment holds: Neutron will
// not hand them out again until someone frees them in its database.
func unheldLeaks(us []neutron.UnheldAllocation) []drift.Leak {
	var out []drift.Leak
	for _, u := range us {
		ids := make([]string, len(u.SegmentationIDs))
		for i, id := range u.SegmentationIDs {
			ids[i] = strconv.Itoa(id)
		}
		where := u.NetworkType
		if u.PhysicalNetwork != "" {
			where += " on " + u.PhysicalNetwork
		}
		out = append(out, drift.Leak{Kind: "segment_range", Key: cmp.Or(u.RangeName, u.RangeID),
			Message: fmt.Sprintf("%s ids %s allocated in Neutron but held by no segment (a segment deleted half-way?): lost to the range until freed",
				where, strings.Join(ids, ", "))})
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
