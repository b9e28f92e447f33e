package neutron

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Fields requested of each collection: only what Map and the range writer
// use. Neutron ignores fields on segment lists, so segments have none.
var (
	networkFields = []string{"id", "name", "project_id",
		"provider:network_type", "provider:physical_network", "provider:segmentation_id", "segments"}
	subnetFields = []string{"id", "name", "network_id", "segment_id", "cidr", "project_id"}
	portFields   = []string{"id", "name", "network_id", "device_owner", "binding:host_id", "dns_name", "fixed_ips"}
	// Without fields a range carries every free and used id ("available").
	rangeFields = []string{"id", "name", "description", "default", "shared", "project_id",
		"network_type", "physical_network", "minimum", "maximum", "tags", "revision_number"}
)

// flexInt decodes a segmentation id, which plugins send as a number, a
// numeric string or null.
type flexInt int

func (f *flexInt) UnmarshalJSON(b []byte) error {
	b = bytes.Trim(b, `"`)
	if len(b) == 0 || string(b) == "null" {
		*f = 0
		return nil
	}
	n, err := strconv.Atoi(string(b))
	if err != nil {
		return fmt.Errorf("segmentation id %s: %w", b, err)
	}
	*f = flexInt(n)
	return nil
}

type wireNetwork struct {
	ID              string                `json:"id"`
	Name            string                `json:"name"`
	ProjectID       string                `json:"project_id"`
	NetworkType     string                `json:"provider:network_type"`
	PhysicalNetwork string                `json:"provider:physical_network"`
	SegmentationID  flexInt               `json:"provider:segmentation_id"`
	Segments        []wireProviderSegment `json:"segments"`
}

type wireProviderSegment struct {
	NetworkType     string  `json:"provider:network_type"`
	PhysicalNetwork string  `json:"provider:physical_network"`
	SegmentationID  flexInt `json:"provider:segmentation_id"`
}

func (w wireNetwork) recordID() string { return w.ID }

func (w wireNetwork) network() Network {
	n := Network{ID: w.ID, Name: w.Name, ProjectID: w.ProjectID}
	for _, s := range w.Segments {
		n.Segments = append(n.Segments, Segment{NetworkID: w.ID, NetworkType: s.NetworkType,
			PhysicalNetwork: s.PhysicalNetwork, SegmentationID: int(s.SegmentationID)})
	}
	if len(n.Segments) == 0 && w.NetworkType != "" {
		n.Segments = []Segment{{NetworkID: w.ID, NetworkType: w.NetworkType,
			PhysicalNetwork: w.PhysicalNetwork, SegmentationID: int(w.SegmentationID)}}
	}
	return n
}

type wireSegment struct {
	ID              string  `json:"id"`
	NetworkID       string  `json:"network_id"`
	Name            string  `json:"name"`
	NetworkType     string  `json:"network_type"`
	PhysicalNetwork string  `json:"physical_network"`
	SegmentationID  flexInt `json:"segmentation_id"`
}

func (w wireSegment) recordID() string { return w.ID }

func (w wireSegment) segment() Segment {
	return Segment{ID: w.ID, NetworkID: w.NetworkID, Name: w.Name, NetworkType: w.NetworkType,
		PhysicalNetwork: w.PhysicalNetwork, SegmentationID: int(w.SegmentationID)}
}

type wireSubnet struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	NetworkID string `json:"network_id"`
	SegmentID string `json:"segment_id"`
	CIDR      string `json:"cidr"`
	ProjectID string `json:"project_id"`
}

func (w wireSubnet) recordID() string { return w.ID }

func (w wireSubnet) subnet() Subnet {
	return Subnet(w)
}

type wirePort struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	NetworkID   string `json:"network_id"`
	DeviceOwner string `json:"device_owner"`
	HostID      string `json:"binding:host_id"`
	DNSName     string `json:"dns_name"`
	FixedIPs    []struct {
		SubnetID  string `json:"subnet_id"`
		IPAddress string `json:"ip_address"`
	} `json:"fixed_ips"`
}

func (w wirePort) recordID() string { return w.ID }

func (w wirePort) port() Port {
	p := Port{ID: w.ID, Name: w.Name, NetworkID: w.NetworkID, DeviceOwner: w.DeviceOwner, HostID: w.HostID, DNSName: w.DNSName}
	for _, f := range w.FixedIPs {
		p.FixedIPs = append(p.FixedIPs, FixedIP{SubnetID: f.SubnetID, IPAddress: f.IPAddress})
	}
	return p
}

type wireRange struct {
	ID              string   `json:"id"`
	Name            string   `json:"name"`
	Description     string   `json:"description"`
	Default         bool     `json:"default"`
	Shared          bool     `json:"shared"`
	ProjectID       string   `json:"project_id"`
	NetworkType     string   `json:"network_type"`
	PhysicalNetwork string   `json:"physical_network"`
	Minimum         int      `json:"minimum"`
	Maximum         int      `json:"maximum"`
	Tags            []string `json:"tags"`
	RevisionNumber  int      `json:"revision_number"`
}

func (w wireRange) recordID() string { return w.ID }

func (w wireRange) segmentRange() SegmentRange {
	return SegmentRange(w)
}

// decodeRecords decodes a JSON list of records.
func decodeRecords[W any](raw json.RawMessage) ([]W, error) {
	var out []W
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	return out, nil
}
