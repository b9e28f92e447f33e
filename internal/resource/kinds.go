package resource

import (
	"net/netip"
	"strconv"
)

// Namespace is a Nautobot IPAM namespace: the scope in which prefixes and IP
// addresses are unique.
type Namespace struct {
	M           Meta   `json:"meta"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Location    string `json:"location,omitempty"`
}

func (o *Namespace) Kind() Kind  { return KindNamespace }
func (o *Namespace) Key() Key    { return Key{KindNamespace, o.Name} }
func (o *Namespace) Meta() *Meta { return &o.M }
func (o *Namespace) Diff(cur Object) []FieldDiff {
	c := cur.(*Namespace)
	var d differ
	d.str("description", c.Description, o.Description)
	d.str("location", c.Location, o.Location)
	return d
}
func (o *Namespace) References() []Reference { return o.appendReferences(nil) }
func (o *Namespace) appendReferences(dst []Reference) []Reference {
	r := refs(dst)
	r.add("location", RefLocation, o.Location)
	return r
}

// VLANGroup is a set of VLANs with its own vid range, scoped to a location.
// Neutron's physical_network names a group (one per leaf pair).
type VLANGroup struct {
	M           Meta      `json:"meta"`
	Name        string    `json:"name"`
	Location    string    `json:"location,omitempty"`
	Range       VIDRanges `json:"range,omitempty"`
	Description string    `json:"description,omitempty"`
	Tags        []string  `json:"tags,omitempty"`
}

func (o *VLANGroup) Kind() Kind  { return KindVLANGroup }
func (o *VLANGroup) Key() Key    { return Key{KindVLANGroup, o.Name} }
func (o *VLANGroup) Meta() *Meta { return &o.M }
func (o *VLANGroup) Diff(cur Object) []FieldDiff {
	c := cur.(*VLANGroup)
	var d differ
	d.str("location", c.Location, o.Location)
	d.str("range", c.Range.orAll(), o.Range.orAll())
	d.str("description", c.Description, o.Description)
	d.set("tags", c.Tags, o.Tags)
	return d
}
func (o *VLANGroup) References() []Reference { return o.appendReferences(nil) }
func (o *VLANGroup) appendReferences(dst []Reference) []Reference {
	r := refs(dst)
	r.add("location", RefLocation, o.Location)
	r.tags(o.Tags)
	return r
}

// VLAN is one 802.1Q VLAN in a group.
type VLAN struct {
	M           Meta     `json:"meta"`
	Group       string   `json:"vlan_group"`
	VID         uint16   `json:"vid"`
	Name        string   `json:"name"`
	Status      string   `json:"status,omitempty"`
	Role        string   `json:"role,omitempty"`
	Tenant      string   `json:"tenant,omitempty"`
	Description string   `json:"description,omitempty"`
	Tags        []string `json:"tags,omitempty"`
}

// VLANKey is the natural key name of the VLAN with vid in group.
func VLANKey(group string, vid uint16) string { return group + "/" + strconv.Itoa(int(vid)) }

func (o *VLAN) Kind() Kind  { return KindVLAN }
func (o *VLAN) Key() Key    { return Key{KindVLAN, VLANKey(o.Group, o.VID)} }
func (o *VLAN) Meta() *Meta { return &o.M }
func (o *VLAN) Diff(cur Object) []FieldDiff {
	c := cur.(*VLAN)
	var d differ
	d.str("name", c.Name, o.Name)
	d.str("status", c.Status, o.Status)
	d.str("role", c.Role, o.Role)
	d.str("tenant", c.Tenant, o.Tenant)
	d.str("description", c.Description, o.Description)
	d.set("tags", c.Tags, o.Tags)
	return d
}
func (o *VLAN) References() []Reference { return o.appendReferences(nil) }
func (o *VLAN) appendReferences(dst []Reference) []Reference {
	r := refs(dst)
	r.add("vlan_group", KindVLANGroup, o.Group)
	r.add("status", RefStatus, o.Status)
	r.add("role", RefRole, o.Role)
	r.add("tenant", RefTenant, o.Tenant)
	r.tags(o.Tags)
	return r
}

// Prefix types as Nautobot names them.
const (
	PrefixContainer = "container"
	PrefixNetwork   = "network"
	PrefixPool      = "pool"
)

// Prefix is an IP network in a namespace.
type Prefix struct {
	M         Meta         `json:"meta"`
	Namespace string       `json:"namespace"`
	Prefix    netip.Prefix `json:"prefix"`
	Type      string       `json:"type,omitempty"`
	Status    string       `json:"status,omitempty"`
	Locations []string     `json:"locations,omitempty"`
	// VLAN is the natural key (VLANKey) of the prefix's VLAN, or empty.
	VLAN string `json:"vlan,omitempty"`
	// VNI is the VXLAN/Geneve segment id of the prefix's network, when it
	// has one (Nautobot has no VNI model; it is kept in a custom field).
	VNI         uint32   `json:"vni,omitempty"`
	Role        string   `json:"role,omitempty"`
	Tenant      string   `json:"tenant,omitempty"`
	Description string   `json:"description,omitempty"`
	Tags        []string `json:"tags,omitempty"`
}

// PrefixKey is the natural key name of p in namespace ns.
func PrefixKey(ns string, p netip.Prefix) string { return ns + "/" + p.String() }

func (o *Prefix) Kind() Kind  { return KindPrefix }
func (o *Prefix) Key() Key    { return Key{KindPrefix, PrefixKey(o.Namespace, o.Prefix)} }
func (o *Prefix) Meta() *Meta { return &o.M }
func (o *Prefix) Diff(cur Object) []FieldDiff {
	c := cur.(*Prefix)
	var d differ
	d.str("type", c.Type, o.Type)
	d.str("status", c.Status, o.Status)
	d.set("locations", c.Locations, o.Locations)
	d.str("vlan", c.VLAN, o.VLAN)
	d.num("vni", uint64(c.VNI), uint64(o.VNI))
	d.str("role", c.Role, o.Role)
	d.str("tenant", c.Tenant, o.Tenant)
	d.str("description", c.Description, o.Description)
	d.set("tags", c.Tags, o.Tags)
	return d
}
func (o *Prefix) References() []Reference { return o.appendReferences(nil) }
func (o *Prefix) appendReferences(dst []Reference) []Reference {
	r := refs(dst)
	r.add("namespace", KindNamespace, o.Namespace)
	r.add("vlan", KindVLAN, o.VLAN)
	r.add("status", RefStatus, o.Status)
	r.add("role", RefRole, o.Role)
	r.add("tenant", RefTenant, o.Tenant)
	for _, l := range o.Locations {
		r.add("locations", RefLocation, l)
	}
	r.tags(o.Tags)
	return r
}

// IPAddress is one host address with its mask, in a namespace. Its key is
// the host alone: Nautobot keeps one IP per host within a parent prefix.
type IPAddress struct {
	M           Meta         `json:"meta"`
	Namespace   string       `json:"namespace"`
	Address     netip.Prefix `json:"address"`
	Status      string       `json:"status,omitempty"`
	Role        string       `json:"role,omitempty"`
	DNSName     string       `json:"dns_name,omitempty"`
	Tenant      string       `json:"tenant,omitempty"`
	Description string       `json:"description,omitempty"`
	Tags        []string     `json:"tags,omitempty"`
}

// IPKey is the natural key name of the address a in namespace ns.
func IPKey(ns string, a netip.Addr) string { return ns + "/" + a.String() }

func (o *IPAddress) Kind() Kind  { return KindIPAddress }
func (o *IPAddress) Key() Key    { return Key{KindIPAddress, IPKey(o.Namespace, o.Address.Addr())} }
func (o *IPAddress) Meta() *Meta { return &o.M }
func (o *IPAddress) Diff(cur Object) []FieldDiff {
	c := cur.(*IPAddress)
	var d differ
	d.str("mask_length", maskLength(c.Address), maskLength(o.Address))
	d.str("status", c.Status, o.Status)
	d.str("role", c.Role, o.Role)
	d.str("dns_name", c.DNSName, o.DNSName)
	d.str("tenant", c.Tenant, o.Tenant)
	d.str("description", c.Description, o.Description)
	d.set("tags", c.Tags, o.Tags)
	return d
}
func (o *IPAddress) References() []Reference { return o.appendReferences(nil) }
func (o *IPAddress) appendReferences(dst []Reference) []Reference {
	r := refs(dst)
	r.add("namespace", KindNamespace, o.Namespace)
	r.add("status", RefStatus, o.Status)
	r.add("role", RefRole, o.Role)
	r.add("tenant", RefTenant, o.Tenant)
	r.tags(o.Tags)
	return r
}

// Network types of segment ranges, as Neutron names them.
const (
	NetworkVLAN   = "vlan"
	NetworkVXLAN  = "vxlan"
	NetworkGeneve = "geneve"
)

// MaxVNI bounds VXLAN and Geneve segment ids (24 bits).
const MaxVNI = 1<<24 - 1

// SegmentRange is a Neutron network-segment-range: the VLAN ids of one
// physical network, or the VNIs of a tunnel type, tenants may be given.
type SegmentRange struct {
	M               Meta   `json:"meta"`
	Name            string `json:"name"`
	Site            string `json:"site,omitempty"`
	NetworkType     string `json:"network_type"`
	PhysicalNetwork string `json:"physical_network,omitempty"`
	Minimum         uint32 `json:"minimum"`
	Maximum         uint32 `json:"maximum"`
	Shared          bool   `json:"shared"`
	Project         string `json:"project_id,omitempty"`
	Description     string `json:"description,omitempty"`
}

func (o *SegmentRange) Kind() Kind  { return KindSegmentRange }
func (o *SegmentRange) Key() Key    { return Key{KindSegmentRange, o.Name} }
func (o *SegmentRange) Meta() *Meta { return &o.M }
func (o *SegmentRange) Diff(cur Object) []FieldDiff {
	c := cur.(*SegmentRange)
	var d differ
	d.str("network_type", c.NetworkType, o.NetworkType)
	d.str("physical_network", c.PhysicalNetwork, o.PhysicalNetwork)
	d.num("minimum", uint64(c.Minimum), uint64(o.Minimum))
	d.num("maximum", uint64(c.Maximum), uint64(o.Maximum))
	d.boolean("shared", c.Shared, o.Shared)
	d.str("project_id", c.Project, o.Project)
	d.str("description", c.Description, o.Description)
	return d
}
func (o *SegmentRange) References() []Reference { return nil }

// ASN is a BGP autonomous system number.
type ASN struct {
	M           Meta     `json:"meta"`
	ASN         uint32   `json:"asn"`
	RIR         string   `json:"rir,omitempty"`
	Status      string   `json:"status,omitempty"`
	Tenant      string   `json:"tenant,omitempty"`
	Description string   `json:"description,omitempty"`
	Tags        []string `json:"tags,omitempty"`
}

func (o *ASN) Kind() Kind  { return KindASN }
func (o *ASN) Key() Key    { return Key{KindASN, strconv.FormatUint(uint64(o.ASN), 10)} }
func (o *ASN) Meta() *Meta { return &o.M }
func (o *ASN) Diff(cur Object) []FieldDiff {
	c := cur.(*ASN)
	var d differ
	d.str("rir", c.RIR, o.RIR)
	d.str("status", c.Status, o.Status)
	d.str("tenant", c.Tenant, o.Tenant)
	d.str("description", c.Description, o.Description)
	d.set("tags", c.Tags, o.Tags)
	return d
}
func (o *ASN) References() []Reference { return o.appendReferences(nil) }
func (o *ASN) appendReferences(dst []Reference) []Reference {
	r := refs(dst)
	r.add("status", RefStatus, o.Status)
	r.add("tenant", RefTenant, o.Tenant)
	r.tags(o.Tags)
	return r
}

func maskLength(p netip.Prefix) string {
	if !p.IsValid() {
		return ""
	}
	return strconv.Itoa(p.Bits())
}
