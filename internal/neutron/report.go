package neutron

import "github.com/ipsync/ipsync/internal/resource"

// Report is what Map found worth telling an operator besides the objects.
type Report struct {
	// UnknownGroups are VLAN segments whose physical network maps to a VLAN
	// group the target does not have; their VLANs were skipped, their
	// subnets' prefixes and IPs were not.
	UnknownGroups []UnknownGroup `json:"unknown_groups,omitempty"`
	// UnusedSegments are VLAN segments no bound port of their network uses
	// on their physical network (findLeaks): likely leaks. Their VLANs are
	// mapped all the same, since Neutron holds their VIDs.
	UnusedSegments []SegmentRef `json:"unused_segments,omitempty"`
	// UnheldAllocations are the ids segment ranges hold allocated that no
	// segment holds.
	UnheldAllocations []UnheldAllocation `json:"unheld_allocations,omitempty"`
	// Duplicates are Neutron records that map to an object another record
	// already mapped to; the first by Neutron id is kept.
	Duplicates []Duplicate `json:"duplicates,omitempty"`
	// Skipped are records that cannot be mapped (bad data, or a parent
	// missing from the read).
	Skipped []Skipped `json:"skipped,omitempty"`
}

// Empty reports whether there is nothing to tell.
func (r Report) Empty() bool {
	return len(r.UnknownGroups) == 0 && len(r.UnusedSegments) == 0 && len(r.UnheldAllocations) == 0 &&
		len(r.Duplicates) == 0 && len(r.Skipped) == 0
}

// SegmentRef names one segment of one network.
type SegmentRef struct {
	NetworkID       string `json:"network_id"`
	NetworkName     string `json:"network_name,omitempty"`
	SegmentID       string `json:"segment_id,omitempty"` // empty without the segments extension
	NetworkType     string `json:"network_type"`
	PhysicalNetwork string `json:"physical_network,omitempty"`
	SegmentationID  int    `json:"segmentation_id,omitempty"`
}

// UnheldAllocation is the ids of one range that Neutron holds allocated
// though no segment holds them.
type UnheldAllocation struct {
	RangeID         string `json:"range_id"`
	RangeName       string `json:"range_name,omitempty"`
	NetworkType     string `json:"network_type"`
	PhysicalNetwork string `json:"physical_network,omitempty"`
	SegmentationIDs []int  `json:"segmentation_ids"`
}

// UnknownGroup is a segment whose VLAN group is missing.
type UnknownGroup struct {
	SegmentRef
	Group string `json:"vlan_group"`
}

// Duplicate is a record dropped because its object's key was taken.
type Duplicate struct {
	Key resource.Key `json:"key"`
	// Kept and Dropped are the Neutron ids (segment or network, subnet,
	// port) of the two records.
	Kept    string `json:"kept"`
	Dropped string `json:"dropped"`
}

// Skipped is a record Map could not turn into an object.
type Skipped struct {
	Kind   string `json:"kind"` // "segment", "subnet" or "port"
	ID     string `json:"id"`
	Reason string `json:"reason"`
}
