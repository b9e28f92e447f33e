package neutron

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Fields requested of each collection: only what Map and the range writer
// use. Neutron ignores fields on segment lists, so segments have none.
var (
	networkFields = []string{"id", "name", "project_id",
		"provider:network_type", "provider:physical_network", "provider:segmentation_id", "segments"}
	subnetFields = []string{"id", "name", "network_id", "segment_id", "cidr", "project_id"}
	portFields   = []string{"id", "name", "network_id", "device_owner", "binding:host_id", "dns_name", "fixed_ips",
		"binding:vif_type", "binding:profile", "updated_at"}
	agentFields = []string{"id", "host", "configurations"}
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

// flexTime decodes a Neutron timestamp ("2026-12-07T02:25:17Z", or
// without the zone from older servers); anything else is zero, so that an
// odd timestamp costs the grace period, not the read.
type flexTime struct{ time.Time }

func (f *flexTime) UnmarshalJSON(b []byte) error {
	s := string(bytes.Trim(b, `"`))
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			f.Time = t.UTC()
			return nil
		}
	}
	f.Time = time.Time{}
	return nil
}

// bindingProfile keeps the one key of binding:profile the leak rule reads;
// the profile is free-form (drivers and Ironic put their own keys in it),
// so a profile that is not an object is no profile, not a failed read.
type bindingProfile struct{ physnet string }

func (p *bindingProfile) UnmarshalJSON(b []byte) error {
	var v struct {
		PhysicalNetwork any `json:"physical_network"`
	}
	if json.Unmarshal(b, &v) == nil {
		p.physnet, _ = v.PhysicalNetwork.(string)
	}
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
	ID              string   `json:"id"`
	NetworkID       string   `json:"network_id"`
	Name            string   `json:"name"`
	NetworkType     string   `json:"network_type"`
	PhysicalNetwork string   `json:"physical_network"`
	SegmentationID  flexInt  `json:"segmentation_id"`
	CreatedAt       flexTime `json:"created_at"`
}

func (w wireSegment) recordID() string { return w.ID }

func (w wireSegment) segment() Segment {
	return Segment{ID: w.ID, NetworkID: w.NetworkID, Name: w.Name, NetworkType: w.NetworkType,
		PhysicalNetwork: w.PhysicalNetwork, SegmentationID: int(w.SegmentationID), CreatedAt: w.CreatedAt.Time}
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
	VIFType   string         `json:"binding:vif_type"`
	Profile   bindingProfile `json:"binding:profile"`
	UpdatedAt flexTime       `json:"updated_at"`
}

func (w wirePort) recordID() string { return w.ID }

// port converts the record; the physical networks of its binding are the
// reader's to add, from the agents, where the profile names none.
func (w wirePort) port() Port {
	p := Port{ID: w.ID, Name: w.Name, NetworkID: w.NetworkID, DeviceOwner: w.DeviceOwner, HostID: w.HostID, DNSName: w.DNSName,
		VIFType: vifType(w.VIFType), UpdatedAt: w.UpdatedAt.Time}
	if w.Profile.physnet != "" {
		p.Physnets = []string{w.Profile.physnet}
	}
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
	return SegmentRange{ID: w.ID, Name: w.Name, Description: w.Description, Default: w.Default, Shared: w.Shared,
		ProjectID: w.ProjectID, NetworkType: w.NetworkType, PhysicalNetwork: w.PhysicalNetwork, Minimum: w.Minimum,
		Maximum: w.Maximum, Tags: w.Tags, RevisionNumber: w.RevisionNumber}
}

// wireAllocation is what one range says of its ids: those free, and those
// segments hold (segmentation id to project).
type wireAllocation struct {
	Available []int          `json:"available"`
	Used      map[string]any `json:"used"`
}

// vifType shares one string among the ports of each common type.
func vifType(s string) string {
	for _, c := range [...]string{VIFUnbound, VIFBindingFailed, "other", "ovs", "vhostuser", "hw_veb", "distributed"} {
		if s == c {
			return c
		}
	}
	return s
}

type wireAgent struct {
	ID             string        `json:"id"`
	Host           string        `json:"host"`
	Configurations agentPhysnets `json:"configurations"`
}

func (w wireAgent) recordID() string { return w.ID }

func (w wireAgent) agent() wireAgent { return w }

// agentPhysnets are the physical networks an agent's configurations map,
// the keys of its bridge, interface and device mappings, as Neutron's
// segments plugin reads them to map hosts to segments. Configurations are
// each agent type's own; one that does not decode maps nothing.
type agentPhysnets []string

func (a *agentPhysnets) UnmarshalJSON(b []byte) error {
	var v map[string]json.RawMessage
	*a = nil
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	for _, k := range []string{"bridge_mappings", "interface_mappings", "device_mappings"} {
		var m map[string]json.RawMessage
		if json.Unmarshal(v[k], &m) != nil {
			continue
		}
		for physnet := range m {
			*a = append(*a, physnet)
		}
	}
	return nil
}

// decodeRecords decodes a JSON list of records.
func decodeRecords[W any](raw json.RawMessage) ([]W, error) {
	var out []W
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	return out, nil
}
