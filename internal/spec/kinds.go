package spec

import (
	"fmt"
	"math"

	"github.com/ipsync/ipsync/internal/resource"
)

// Defaults Nautobot itself would apply, made explicit so that plans compare
// what the target will actually hold.
const (
	DefaultNamespace = "Global" // Nautobot ships it, so it never needs declaring
	DefaultStatus    = "Active"
)

// schemas lists the kinds a spec file may hold, in resource.Kinds order.
func schemas() []*schema {
	return []*schema{
		{list: "namespaces", item: "namespace", key: []string{"name"}, decode: decodeNamespace,
			fields: []field{{"name", true}, {"description", false}, {"location", false}}},
		{list: "vlan_groups", item: "vlan_group", key: []string{"name"}, decode: decodeVLANGroup,
			fields: []field{{"name", true}, {"location", false}, {"range", false}, {"description", false}, {"tags", false}}},
		{list: "vlans", item: "vlan", key: []string{"vid", "vlan_group"}, decode: decodeVLAN,
			fields: []field{{"vid", true}, {"name", true}, {"vlan_group", true}, {"status", false}, {"role", false},
				{"tenant", false}, {"description", false}, {"tags", false}}},
		{list: "prefixes", item: "prefix", key: []string{"prefix", "namespace"}, decode: decodePrefix,
			fields: []field{{"prefix", true}, {"namespace", false}, {"type", false}, {"status", false}, {"location", false},
				{"locations", false}, {"vlan", false}, {"vni", false}, {"role", false}, {"tenant", false},
				{"description", false}, {"tags", false}}},
		{list: "ip_addresses", item: "ip_address", key: []string{"address", "namespace"}, decode: decodeIPAddress,
			fields: []field{{"address", true}, {"namespace", false}, {"status", false}, {"role", false}, {"dns_name", false},
				{"tenant", false}, {"description", false}, {"tags", false}}},
		{list: "segment_ranges", item: "segment_range", key: []string{"name"}, decode: decodeSegmentRange,
			fields: []field{{"name", true}, {"site", false}, {"network_type", true}, {"physical_network", false},
				{"minimum", true}, {"maximum", true}, {"shared", false}, {"project_id", false}, {"description", false}}},
		{list: "asns", item: "asn", key: []string{"asn"}, decode: decodeASN,
			fields: []field{{"asn", true}, {"rir", false}, {"status", false}, {"tenant", false}, {"description", false},
				{"tags", false}}},
		{list: "subnet_pools", item: "subnet_pool", key: []string{"name"}, decode: decodeSubnetPool,
			fields: []field{{"name", true}, {"site", false}, {"namespace", false}, {"prefixes", true},
				{"default_prefixlen", false}, {"min_prefixlen", false}, {"max_prefixlen", false}, {"shared", false},
				{"description", false}}},
	}
}

func decodeNamespace(r *record) resource.Object {
	return &resource.Namespace{Name: r.str("name"), Description: r.str("description"), Location: r.str("location")}
}

func decodeVLANGroup(r *record) resource.Object {
	g := &resource.VLANGroup{Name: r.str("name"), Location: r.str("location"),
		Range:       resource.VIDRanges{{Lo: resource.MinVID, Hi: resource.MaxVID}},
		Description: r.str("description"), Tags: r.set("tags")}
	if s := r.str("range"); r.ok("range") {
		rg, err := resource.ParseVIDRanges(s)
		if err != nil {
			r.failField("range", fmt.Sprintf("%q: %v", s, err))
		} else {
			g.Range = rg
		}
	}
	return g
}

func decodeVLAN(r *record) resource.Object {
	return &resource.VLAN{
		VID: uint16(r.num("vid", resource.MinVID, resource.MaxVID)), Name: r.str("name"), Group: r.str("vlan_group"),
		Status: r.strOr("status", DefaultStatus), Role: r.str("role"), Tenant: r.str("tenant"),
		Description: r.str("description"), Tags: r.set("tags"),
	}
}

func decodePrefix(r *record) resource.Object {
	p := &resource.Prefix{
		Prefix: r.network("prefix"), Namespace: r.strOr("namespace", DefaultNamespace),
		Type:   r.oneOf("type", resource.PrefixNetwork, resource.PrefixContainer, resource.PrefixNetwork, resource.PrefixPool),
		Status: r.strOr("status", DefaultStatus), Locations: r.set("locations"), VLAN: r.vlanRef("vlan"),
		VNI:  uint32(r.num("vni", 1, resource.MaxVNI)),
		Role: r.str("role"), Tenant: r.str("tenant"), Description: r.str("description"), Tags: r.set("tags"),
	}
	if l := r.str("location"); l != "" {
		p.Locations = resource.NormalizeSet(append(p.Locations, l))
	}
	return p
}

func decodeIPAddress(r *record) resource.Object {
	return &resource.IPAddress{
		Address: r.host("address"), Namespace: r.strOr("namespace", DefaultNamespace),
		Status: r.strOr("status", DefaultStatus), Role: r.str("role"), DNSName: r.str("dns_name"),
		Tenant: r.str("tenant"), Description: r.str("description"), Tags: r.set("tags"),
	}
}

func decodeSegmentRange(r *record) resource.Object {
	s := &resource.SegmentRange{
		Name: r.str("name"), Site: r.str("site"),
		NetworkType:     r.oneOf("network_type", "", resource.NetworkVLAN, resource.NetworkVXLAN, resource.NetworkGeneve),
		PhysicalNetwork: r.str("physical_network"),
		Minimum:         uint32(r.num("minimum", 0, math.MaxUint32)), Maximum: uint32(r.num("maximum", 0, math.MaxUint32)),
		Shared: r.boolean("shared", true), Project: r.str("project_id"), Description: r.str("description"),
	}
	switch {
	case !r.ok("network_type"):
	case s.NetworkType == resource.NetworkVLAN && s.PhysicalNetwork == "" && !r.reported("physical_network"):
		r.failField("physical_network", "required when network_type is vlan (the Neutron physnet, named like its VLAN group)")
	case s.NetworkType != resource.NetworkVLAN && r.val("physical_network") != nil:
		r.failField("physical_network", fmt.Sprintf("only vlan ranges have a physical network, not %s ones", s.NetworkType))
	}
	if !s.Shared && s.Project == "" && !r.reported("project_id") {
		r.failField("project_id", "required when shared is false (the project the range is reserved for)")
	}
	if r.ok("network_type") {
		hi := uint32(resource.MaxVID)
		if s.NetworkType != resource.NetworkVLAN {
			hi = resource.MaxVNI
		}
		for _, f := range []struct {
			name string
			v    uint32
		}{{"minimum", s.Minimum}, {"maximum", s.Maximum}} {
			if r.ok(f.name) && (f.v < 1 || f.v > hi) {
				r.failField(f.name, fmt.Sprintf("%d is outside 1-%d, the %s id space", f.v, hi, s.NetworkType))
			}
		}
	}
	if r.ok("minimum") && r.ok("maximum") && s.Minimum > s.Maximum {
		r.failField("minimum", fmt.Sprintf("minimum %d is greater than maximum %d", s.Minimum, s.Maximum))
	}
	return s
}

func decodeASN(r *record) resource.Object {
	return &resource.ASN{
		ASN: uint32(r.num("asn", 1, math.MaxUint32)), RIR: r.str("rir"), Status: r.strOr("status", DefaultStatus),
		Tenant: r.str("tenant"), Description: r.str("description"), Tags: r.set("tags"),
	}
}
