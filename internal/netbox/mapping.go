package netbox

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"strconv"

	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sot"
)

// GlobalNamespace is the namespace that stands for NetBox's global table:
// prefixes and IP addresses without a VRF. It has no object in NetBox.
const GlobalNamespace = "Global"

// asnStatus is what an ASN's status reads as: NetBox ASNs have no status,
// and ipsync's default is Active.
const asnStatus = "Active"

// mapper turns wire objects into resource objects, naming what they
// refer to from the lookups.
type mapper struct {
	l          *lookups
	tag        int // id of the marker tag, 0 if it does not exist
	ownerField string
	vniField   string
	rir        string // Config.RIR: an ASN of this RIR reads as one without
	scopeType  string // "dcim.site" or "dcim.location"
	vrfs       map[int]string
	groups     map[int]string
	vlans      map[int]string // id -> resource.VLANKey
}

func (c *Client) newMapper(l *lookups) *mapper {
	m := &mapper{l: l, ownerField: c.cfg.OwnerField, vniField: c.cfg.VNIField, rir: c.cfg.RIR,
		scopeType: "dcim." + c.cfg.LocationScope, vrfs: map[int]string{}, groups: map[int]string{}, vlans: map[int]string{}}
	m.tag = l.refs[resource.RefTag].byName[c.cfg.Tag]
	return m
}

// meta reads the marker: the owner counts only on objects that carry the
// marker tag, so a copied custom field alone does not make ipsync an
// object's owner. It returns the other tags, sorted.
func (m *mapper) meta(b base) (resource.Meta, []string) {
	meta := resource.Meta{ID: strconv.Itoa(b.ID), Version: b.LastUpdated}
	var tags []string
	marked := false
	for _, t := range b.Tags {
		if m.tag != 0 && t.ID == m.tag {
			marked = true
			continue
		}
		if n := m.l.refs[resource.RefTag].name(t.ID); n != "" {
			tags = append(tags, n)
		}
	}
	if marked {
		var owner string
		if raw, ok := b.CustomFields[m.ownerField]; ok && json.Unmarshal(raw, &owner) == nil {
			meta.Owner = resource.Owner(owner)
		}
	}
	return meta, resource.NormalizeSet(tags)
}

func (m *mapper) name(k resource.Kind, r *ref) string {
	if r == nil {
		return ""
	}
	return m.l.refs[k].name(r.ID)
}

// scope names a scope that is a site or location as LocationScope says;
// any other scope has no ipsync location.
func (m *mapper) scope(typ *string, id *int) string {
	if typ == nil || id == nil || *typ != m.scopeType {
		return ""
	}
	return m.l.refs[resource.RefLocation].name(*id)
}

func (m *mapper) vrfName(r *ref) string {
	if r == nil {
		return GlobalNamespace
	}
	return m.vrfs[r.ID]
}

func (m *mapper) namespace(w wireVRF) *resource.Namespace {
	meta, _ := m.meta(w.base)
	return &resource.Namespace{M: meta, Name: w.Name, Description: w.Description}
}

func (m *mapper) vlanGroup(w wireVLANGroup) (*resource.VLANGroup, error) {
	meta, tags := m.meta(w.base)
	g := &resource.VLANGroup{M: meta, Name: w.Name, Description: w.Description, Location: m.scope(w.ScopeType, w.ScopeID), Tags: tags}
	for _, r := range w.VIDRanges {
		if r[0] < resource.MinVID || r[1] > resource.MaxVID || r[0] > r[1] {
			return nil, fmt.Errorf("vlan group %q: vid range %d-%d is outside %d-%d", w.Name, r[0], r[1], resource.MinVID, resource.MaxVID)
		}
		g.Range = append(g.Range, resource.VIDRange{Lo: uint16(r[0]), Hi: uint16(r[1])})
	}
	if len(g.Range) == 1 && g.Range[0] == (resource.VIDRange{Lo: resource.MinVID, Hi: resource.MaxVID}) {
		g.Range = nil // the default: what a spec that gives no range means
	}
	return g, nil
}

func (m *mapper) vlan(w wireVLAN) *resource.VLAN {
	meta, tags := m.meta(w.base)
	return &resource.VLAN{M: meta, Group: m.groups[refID(w.Group)], VID: w.VID, Name: w.Name,
		Status: label(m.l.statuses["ipam.vlan"], w.Status), Role: m.name(resource.RefRole, w.Role),
		Tenant: m.name(resource.RefTenant, w.Tenant), Description: w.Description, Tags: tags}
}

// prefix maps a prefix. NetBox keeps "container" as a status and a pool as
// a flag: a container reads as type container with status Active (the
// status a container has in ipsync, see Check), a pool as type pool.
func (m *mapper) prefix(w wirePrefix) (*resource.Prefix, error) {
	meta, tags := m.meta(w.base)
	p, err := netip.ParsePrefix(w.Prefix)
	if err != nil {
		return nil, fmt.Errorf("prefix %d: %w", w.ID, err)
	}
	o := &resource.Prefix{M: meta, Namespace: m.vrfName(w.VRF), Prefix: p, Type: resource.PrefixNetwork,
		Status: label(m.l.statuses["ipam.prefix"], w.Status), Role: m.name(resource.RefRole, w.Role),
		Tenant: m.name(resource.RefTenant, w.Tenant), VLAN: m.vlans[refID(w.VLAN)], Description: w.Description, Tags: tags}
	switch {
	case w.Status != nil && w.Status.Value == statusContainer:
		o.Type, o.Status = resource.PrefixContainer, containerStatus
	case w.IsPool:
		o.Type = resource.PrefixPool
	}
	if l := m.scope(w.ScopeType, w.ScopeID); l != "" {
		o.Locations = []string{l}
	}
	o.VNI, err = sot.VNI(w.Prefix, w.CustomFields, m.vniField)
	return o, err
}

func (m *mapper) ip(w wireIP) (*resource.IPAddress, error) {
	meta, tags := m.meta(w.base)
	a, err := netip.ParsePrefix(w.Address)
	if err != nil {
		return nil, fmt.Errorf("ip address %d: %w", w.ID, err)
	}
	return &resource.IPAddress{M: meta, Namespace: m.vrfName(w.VRF), Address: a,
		Status: label(m.l.statuses["ipam.ipaddress"], w.Status), Role: label(m.l.ipRoles, w.Role), DNSName: w.DNSName,
		Tenant: m.name(resource.RefTenant, w.Tenant), Description: w.Description, Tags: tags}, nil
}

func (m *mapper) asn(w wireASN) *resource.ASN {
	meta, tags := m.meta(w.base)
	o := &resource.ASN{M: meta, ASN: w.ASN, RIR: m.name(refRIR, w.RIR), Status: asnStatus,
		Tenant: m.name(resource.RefTenant, w.Tenant), Description: w.Description, Tags: tags}
	if o.RIR == m.rir {
		o.RIR = ""
	}
	return o
}

// The prefix status NetBox uses for containers, and the status a
// container reads with.
const (
	statusContainer = "container"
	containerStatus = "Active"
)
