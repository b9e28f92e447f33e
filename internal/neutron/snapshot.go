package neutron

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
}
