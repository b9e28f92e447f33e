package neutron

import "time"

// Snapshot is everything read from one Neutron at one time. Its records keep
// Neutron's own values (strings for CIDRs and addresses) so that one odd
// record is reported by Map instead of failing the whole read.
type Snapshot struct {
	Networks []Network
	// Segments come from the segments extension (routed networks); empty when
	// Neutron does not have it, and then Map uses Network.Segments.
	Segments []Segment
	Subnets  []Subnet
	Ports    []Port
	// Ranges are all network segment ranges, default ones included; nil
	// when Neutron does not have the network-segment-range extension.
	Ranges []SegmentRange
	// ReadAt is when the read began: the "now" of the leak rule's grace
	// period. Zero in a snapshot put together from others; the rule then
	// takes the newest time its records carry.
	ReadAt time.Time
}

// Network is a Neutron network with its provider segments.
type Network struct {
	ID        string
	Name      string
	ProjectID string
	// Segments are the provider:* attributes of a single-segment network, or
	// the multi-provider "segments" list. They carry no ids or names.
	Segments []Segment
}

// Segment is one L2 segment of a network.
type Segment struct {
	ID              string // empty for segments taken from a network's provider attributes
	NetworkID       string
	Name            string
	NetworkType     string // vlan, vxlan, geneve, flat, ...
	PhysicalNetwork string
	SegmentationID  int // VLAN id or VNI; 0 for flat
	// CreatedAt is Neutron's created_at; zero when not read.
	CreatedAt time.Time
}

// Subnet is a Neutron subnet.
type Subnet struct {
	ID        string
	Name      string
	NetworkID string
	SegmentID string // set on routed networks
	CIDR      string
	ProjectID string
}

// Port is a Neutron port with its fixed IPs.
type Port struct {
	ID          string
	Name        string
	NetworkID   string
	DeviceOwner string
	HostID      string // binding:host_id
	DNSName     string
	FixedIPs    []FixedIP
	// VIFType is binding:vif_type: "unbound" or "binding_failed" for a
	// port that holds no segment, a driver's type for a bound one, empty
	// when Neutron did not say (no binding extension, or a reader that is
	// not admin).
	VIFType string
	// Physnets are the physical networks the port's binding reaches: its
	// binding profile's physical_network, else those of the agents on its
	// host (bridge, interface or device mappings, as Neutron's segments
	// plugin maps hosts). Nil when unknown.
	Physnets []string
	// UpdatedAt is Neutron's updated_at; zero when not read.
	UpdatedAt time.Time
}

// FixedIP is one address of a port in one subnet.
type FixedIP struct {
	SubnetID  string
	IPAddress string
}

// SegmentRange is a Neutron network segment range.
type SegmentRange struct {
	ID              string
	Name            string
	Description     string
	Default         bool // created by Neutron from its ML2 config; read-only
	Shared          bool
	ProjectID       string
	NetworkType     string
	PhysicalNetwork string
	Minimum         int
	Maximum         int
	Tags            []string
	RevisionNumber  int
	// Unheld are the ids of the range Neutron holds allocated that no
	// segment holds: neither available nor used. Nil when not read (ranges
	// larger than maxAllocationScan ids, or a partial read).
	Unheld []int
}
