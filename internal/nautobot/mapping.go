package nautobot

import (
	"fmt"
	"net/netip"

	"github.com/ipsync/ipsync/internal/ownership"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sot"
)

// mapper turns wire objects into resource objects, naming what they
// refer to from the lookups.
type mapper struct {
	l          *lookups
	managedTag string // id of the marker tag, "" if it does not exist
	owner      ownership.Marker
	vniField   string
	namespaces map[string]string // id -> name
	groups     map[string]string // id -> name
	vlans      map[string]string // id -> resource.VLANKey
	prefixNS   map[string]string // prefix id -> namespace id
}

// meta reads the marker (see ownership.Marker.Owner) and returns the
// other tags, sorted.
func (m *mapper) meta(b base) (resource.Meta, []string) {
	meta := resource.Meta{ID: b.ID, Version: b.LastUpdated}
	var tags []string
	marked := false
	for _, t := range b.Tags {
		if t.ID == m.managedTag && m.managedTag != "" {
			marked = true
			continue
		}
		if n := m.l.name(refTag, t.ID); n != "" {
			tags = append(tags, n)
		}
	}
	meta.Owner = m.owner.Owner(marked, b.CustomFields)
	return meta, resource.NormalizeSet(tags)
}

func (m *mapper) ref(k resource.Kind, r *ref) string {
	if r == nil {
		return ""
	}
	return m.l.name(k, r.ID)
}

func (m *mapper) namespace(w wireNamespace) *resource.Namespace {
	meta, _ := m.meta(w.base)
	return &resource.Namespace{M: meta, Name: w.Name, Description: w.Description, Location: m.ref(resource.RefLocation, w.Location)}
}

// fullRange is Nautobot's default VLAN group range; it maps to an empty
// Range, which is what a spec that gives no range means.
const fullRange = "1-4094"

func (m *mapper) vlanGroup(w wireVLANGroup) (*resource.VLANGroup, error) {
	meta, tags := m.meta(w.base)
	g := &resource.VLANGroup{M: meta, Name: w.Name, Description: w.Description, Location: m.ref(resource.RefLocation, w.Location), Tags: tags}
	if w.Range != "" && w.Range != fullRange {
		r, err := resource.ParseVIDRanges(w.Range)
		if err != nil {
			return nil, fmt.Errorf("vlan group %q: range %q: %w", w.Name, w.Range, err)
		}
		g.Range = r
	}
	return g, nil
}

func (m *mapper) vlan(w wireVLAN) *resource.VLAN {
	meta, tags := m.meta(w.base)
	return &resource.VLAN{M: meta, Group: m.groups[refID(w.Group)], VID: w.VID, Name: w.Name,
		Status: m.ref(resource.RefStatus, w.Status), Role: m.ref(resource.RefRole, w.Role),
		Tenant: m.ref(resource.RefTenant, w.Tenant), Description: w.Description, Tags: tags}
}

func (m *mapper) prefix(w wirePrefix) (*resource.Prefix, error) {
	meta, tags := m.meta(w.base)
	p, err := netip.ParsePrefix(w.Prefix)
	if err != nil {
		return nil, fmt.Errorf("prefix %s: %w", w.ID, err)
	}
	o := &resource.Prefix{M: meta, Namespace: m.namespaces[refID(w.Namespace)], Prefix: p,
		Status: m.ref(resource.RefStatus, w.Status), Role: m.ref(resource.RefRole, w.Role),
		Tenant: m.ref(resource.RefTenant, w.Tenant), VLAN: m.vlans[refID(w.VLAN)], Description: w.Description, Tags: tags}
	if w.Type != nil {
		o.Type = w.Type.Value
	}
	if w.Locations != nil {
		var locs []string
		for _, l := range *w.Locations {
			locs = append(locs, m.l.name(resource.RefLocation, l.ID))
		}
		o.Locations = resource.NormalizeSet(locs)
	}
	o.VNI, err = sot.VNI(w.Prefix, w.CustomFields, m.vniField)
	return o, err
}

func (m *mapper) ip(w wireIP) (*resource.IPAddress, error) {
	meta, tags := m.meta(w.base)
	a, err := netip.ParsePrefix(w.Address)
	if err != nil {
		return nil, fmt.Errorf("ip address %s: %w", w.ID, err)
	}
	ns, ok := m.prefixNS[refID(w.Parent)]
	if !ok {
		return nil, fmt.Errorf("ip address %s: parent prefix %q unknown", w.Address, refID(w.Parent))
	}
	return &resource.IPAddress{M: meta, Namespace: m.namespaces[ns], Address: a,
		Status: m.ref(resource.RefStatus, w.Status), Role: m.ref(resource.RefRole, w.Role), DNSName: w.DNSName,
		Tenant: m.ref(resource.RefTenant, w.Tenant), Description: w.Description, Tags: tags}, nil
}

func (m *mapper) asn(w wireASN) *resource.ASN {
	meta, tags := m.meta(w.base)
	return &resource.ASN{M: meta, ASN: w.ASN, Status: m.ref(resource.RefStatus, w.Status), Description: w.Description, Tags: tags}
}
