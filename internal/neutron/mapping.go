package neutron

import (
	"cmp"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"time"

	"github.com/ipsync/ipsync/internal/resource"
)

// MapConfig is how one site's Neutron maps to objects.
type MapConfig struct {
	Site string
	// Namespace holds the site's prefixes and IPs; default: the site name.
	Namespace string
	// NamespacePerNetwork puts each network in its own namespace
	// "<Namespace>/<network name>" (the id when the name is empty or not
	// unique), for sites whose networks reuse address space.
	NamespacePerNetwork bool
	// PhysnetGroups maps a physical network to its VLAN group; a physical
	// network not listed is a group of the same name.
	PhysnetGroups map[string]string
	// Status of every object; default "Active".
	Status string
	// TenantByProject names the tenant of a project's prefixes.
	TenantByProject map[string]string
	// KnownGroups are the VLAN groups the target has; a VLAN in any other
	// group is skipped and reported. Nil means do not check.
	KnownGroups map[string]bool
	// LeakGrace is how long a segment of a network with ports must go
	// unused before it is reported; zero is DefaultLeakGrace, negative
	// none.
	LeakGrace time.Duration
}

// DefaultStatus is the status of mapped objects unless configured.
const DefaultStatus = "Active"

// DeviceOwnerDHCP is the owner of the DHCP ports Neutron adds to networks by
// itself: they do not make a segment "used".
const DeviceOwnerDHCP = "network:dhcp"

// Map turns a snapshot into the objects the site's Neutron owns, in kind
// order and then by key. It is pure and deterministic: the same snapshot in
// any record order gives the same objects and report.
func Map(s *Snapshot, cfg MapConfig) ([]resource.Object, Report) {
	m := newMapper(s, cfg)
	return sortObjects(m.objs), m.report
}

// Footprint is every object the records of the networks ids map to in any
// of snaps (a site before and after a change), kept or dropped as a
// duplicate. Names and duplicates are decided over the whole snapshot, so
// this is the part of Map(snap, cfg) those networks account for, not what
// they would map to alone. With a namespace per network, the networks
// named like one of ids in any snapshot are in it too: whether a name is
// unique decides their namespace.
func Footprint(cfg MapConfig, ids []string, snaps ...*Snapshot) map[resource.Identity]bool {
	in := map[string]bool{}
	for _, id := range ids {
		in[id] = true
	}
	if cfg.NamespacePerNetwork {
		names := map[string]bool{}
		for _, s := range snaps {
			for _, n := range s.Networks {
				if in[n.ID] && n.Name != "" {
					names[n.Name] = true
				}
			}
		}
		for _, s := range snaps {
			for _, n := range s.Networks {
				in[n.ID] = in[n.ID] || names[n.Name]
			}
		}
	}
	out := map[resource.Identity]bool{}
	for _, s := range snaps {
		m := newMapper(s, cfg)
		for id := range in {
			for _, o := range m.origins[id] {
				out[o] = true
			}
		}
	}
	return out
}

// Groups are the VLAN groups the VLAN segments of s map to, listed in
// PhysnetGroups or named like their physical network, sorted: where the
// target holds the VLANs a site's may collide with.
func Groups(s *Snapshot, cfg MapConfig) []string {
	m := &mapper{cfg: cfg}
	set := map[string]bool{}
	add := func(sg Segment) {
		if sg.NetworkType == resource.NetworkVLAN && sg.PhysicalNetwork != "" {
			set[m.group(sg.PhysicalNetwork)] = true
		}
	}
	for _, n := range s.Networks {
		for _, sg := range n.Segments {
			add(sg)
		}
	}
	for _, sg := range s.Segments {
		add(sg)
	}
	return slices.Sorted(maps.Keys(set))
}

func newMapper(s *Snapshot, cfg MapConfig) *mapper {
	if cfg.Namespace == "" {
		cfg.Namespace = cfg.Site
	}
	if cfg.Status == "" {
		cfg.Status = DefaultStatus
	}
	m := &mapper{cfg: cfg, owner: resource.NeutronOwner(cfg.Site), seen: map[resource.Identity]string{},
		origins: map[string][]resource.Identity{}, vlanNames: map[string]bool{}}
	m.mapNetworks(s)
	m.mapSubnets(s.Subnets)
	m.mapPorts(s.Ports)
	m.findLeaks(s)
	return m
}

// sortObjects orders objects by kind, then key, building each key once.
func sortObjects(objs []resource.Object) []resource.Object {
	type keyed struct {
		rank int
		key  string
		obj  resource.Object
	}
	ks := make([]keyed, len(objs))
	for i, o := range objs {
		ks[i] = keyed{o.Kind().Rank(), o.Key().Name, o}
	}
	slices.SortFunc(ks, func(a, b keyed) int { return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.key, b.key)) })
	for i, k := range ks {
		objs[i] = k.obj
	}
	return objs
}

type mapper struct {
	cfg    MapConfig
	owner  resource.Owner
	objs   []resource.Object
	seen   map[resource.Identity]string // object -> Neutron id of the record it came from
	report Report
	// origins are the objects each network's records map to, duplicates
	// included.
	origins map[string][]resource.Identity
	// vlanNames are the "group/name" pairs taken.
	vlanNames map[string]bool

	nets    map[string]*netInfo
	order   []*netInfo // nets by id, for a stable leak report
	subnets map[string]subnetInfo
}

type netInfo struct {
	net       Network
	namespace string
	vlans     []*segInfo // vlan segments
	tunnels   []Segment  // vxlan and geneve segments
}

type segInfo struct {
	seg  Segment
	vlan string // VLAN key, empty when skipped
}

type subnetInfo struct {
	namespace string
	prefix    netip.Prefix
	segmentID string
}

func (m *mapper) meta() resource.Meta { return resource.Meta{Owner: m.owner} }

// add keeps o, which network's record neutronID maps to, unless an object
// with its identity is already kept.
func (m *mapper) add(o resource.Object, network, neutronID string) {
	id := o.Identity()
	m.origins[network] = append(m.origins[network], id)
	if kept, ok := m.seen[id]; ok {
		m.report.Duplicates = append(m.report.Duplicates, Duplicate{Key: o.Key(), Kept: kept, Dropped: neutronID})
		return
	}
	m.seen[id] = neutronID
	m.objs = append(m.objs, o)
}

func (m *mapper) skip(kind, id, format string, args ...any) {
	m.report.Skipped = append(m.report.Skipped, Skipped{Kind: kind, ID: id, Reason: fmt.Sprintf(format, args...)})
}

func (m *mapper) group(physnet string) string {
	if g, ok := m.cfg.PhysnetGroups[physnet]; ok {
		return g
	}
	return physnet
}

func (m *mapper) mapNetworks(s *Snapshot) {
	nets := slices.SortedFunc(slices.Values(s.Networks), func(a, b Network) int { return cmp.Compare(a.ID, b.ID) })
	names := map[string]int{}
	for _, n := range nets {
		names[n.Name]++
	}
	extSegs := map[string][]Segment{}
	for _, sg := range s.Segments {
		extSegs[sg.NetworkID] = append(extSegs[sg.NetworkID], sg)
	}
	m.nets = make(map[string]*netInfo, len(nets))
	for _, n := range nets {
		label := n.Name
		if label == "" || names[label] > 1 {
			label = n.ID
		}
		ni := &netInfo{net: n, namespace: m.cfg.Namespace}
		if m.cfg.NamespacePerNetwork {
			ni.namespace = m.cfg.Namespace + "/" + label
			m.add(&resource.Namespace{M: m.meta(), Name: ni.namespace, Description: "Neutron network " + n.ID}, n.ID, n.ID)
		}
		m.nets[n.ID] = ni
		m.order = append(m.order, ni)

		segs := extSegs[n.ID]
		if len(segs) == 0 {
			segs = n.Segments
		}
		segs = slices.Clone(segs)
		slices.SortFunc(segs, func(a, b Segment) int {
			return cmp.Or(cmp.Compare(a.PhysicalNetwork, b.PhysicalNetwork), cmp.Compare(a.SegmentationID, b.SegmentationID), cmp.Compare(a.ID, b.ID))
		})
		for _, sg := range segs {
			switch sg.NetworkType {
			case resource.NetworkVLAN:
				ni.vlans = append(ni.vlans, &segInfo{seg: sg})
			case resource.NetworkVXLAN, resource.NetworkGeneve:
				ni.tunnels = append(ni.tunnels, sg)
			}
		}
		for _, si := range ni.vlans {
			m.mapVLAN(ni, si)
		}
	}
}

// vlanName is a VLAN's name: unique in its group, as Nautobot requires, and
// stable. Networks named alike ("private" in every project) share physical
// networks, and a routed network has a segment per group, so the network's
// name carries a suffix from the segment's id (the network's id for a
// network without segment records), which neither a new network nor a new
// segment changes. Only two such suffixes alike in one group fall back to
// the whole id. A network without a name is named by its id.
func (m *mapper) vlanName(group string, n Network, recordID string) string {
	const maxName, suffixLen = 64, 8
	name := recordID
	if n.Name != "" {
		base := n.Name
		if r := []rune(base); len(r) > maxName-suffixLen-1 {
			base = string(r[:maxName-suffixLen-1])
		}
		name = base + "-" + recordID[:min(suffixLen, len(recordID))]
		if m.vlanNames[group+"/"+name] {
			name = base + "-" + recordID
		}
	}
	m.vlanNames[group+"/"+name] = true
	return name
}

func (m *mapper) mapVLAN(ni *netInfo, si *segInfo) {
	sg := si.seg
	recordID := cmp.Or(sg.ID, ni.net.ID)
	if sg.SegmentationID < 1 || sg.SegmentationID > 4094 {
		m.skip("segment", recordID, "network %s: VLAN id %d is outside 1-4094", ni.net.ID, sg.SegmentationID)
		return
	}
	group := m.group(sg.PhysicalNetwork)
	if m.cfg.KnownGroups != nil && !m.cfg.KnownGroups[group] {
		m.report.UnknownGroups = append(m.report.UnknownGroups, UnknownGroup{SegmentRef: ref(ni, sg), Group: group})
		return
	}
	v := &resource.VLAN{M: m.meta(), Group: group, VID: uint16(sg.SegmentationID), Status: m.cfg.Status}
	if _, taken := m.seen[v.Identity()]; !taken {
		v.Name = m.vlanName(group, ni.net, recordID)
	}
	m.add(v, ni.net.ID, recordID)
	// A duplicate VLAN still exists under the same key, so prefixes may
	// refer to it.
	si.vlan = resource.VLANKey(group, v.VID)
}

func ref(ni *netInfo, sg Segment) SegmentRef {
	return SegmentRef{NetworkID: ni.net.ID, NetworkName: ni.net.Name, SegmentID: sg.ID,
		NetworkType: sg.NetworkType, PhysicalNetwork: sg.PhysicalNetwork, SegmentationID: sg.SegmentationID}
}

func (m *mapper) mapSubnets(subnets []Subnet) {
	subnets = slices.SortedFunc(slices.Values(subnets), func(a, b Subnet) int { return cmp.Compare(a.ID, b.ID) })
	m.subnets = make(map[string]subnetInfo, len(subnets))
	for _, sn := range subnets {
		ni := m.nets[sn.NetworkID]
		if ni == nil {
			m.skip("subnet", sn.ID, "its network %s was not read", sn.NetworkID)
			continue
		}
		p, err := netip.ParsePrefix(sn.CIDR)
		if err != nil {
			m.skip("subnet", sn.ID, "cidr %q: %v", sn.CIDR, err)
			continue
		}
		p = p.Masked()
		m.subnets[sn.ID] = subnetInfo{namespace: ni.namespace, prefix: p, segmentID: sn.SegmentID}
		m.add(&resource.Prefix{
			M:           m.meta(),
			Namespace:   ni.namespace,
			Prefix:      p,
			Type:        resource.PrefixNetwork,
			Status:      m.cfg.Status,
			VLAN:        ni.vlanOf(sn.SegmentID),
			VNI:         ni.vniOf(sn.SegmentID),
			Tenant:      m.cfg.TenantByProject[sn.ProjectID],
			Description: sn.Name,
		}, sn.NetworkID, sn.ID)
	}
}

// vlanOf is the VLAN key of a subnet's segment: the segment it names on a
// routed network, else the network's only VLAN segment.
func (ni *netInfo) vlanOf(segmentID string) string {
	if segmentID != "" {
		for _, si := range ni.vlans {
			if si.seg.ID == segmentID {
				return si.vlan
			}
		}
		return ""
	}
	if len(ni.vlans) == 1 {
		return ni.vlans[0].vlan
	}
	return ""
}

// vniOf is the VNI of a subnet's segment, else of the network's first
// tunnel segment.
func (ni *netInfo) vniOf(segmentID string) uint32 {
	for _, t := range ni.tunnels {
		if segmentID == "" || t.ID == segmentID {
			if t.SegmentationID > 0 && t.SegmentationID <= resource.MaxVNI {
				return uint32(t.SegmentationID)
			}
			return 0
		}
	}
	return 0
}

func (m *mapper) mapPorts(ports []Port) {
	ports = slices.SortedFunc(slices.Values(ports), func(a, b Port) int { return cmp.Compare(a.ID, b.ID) })
	for _, p := range ports {
		for _, f := range p.FixedIPs {
			m.mapIP(p, f)
		}
	}
}

func (m *mapper) mapIP(p Port, f FixedIP) {
	sn, ok := m.subnets[f.SubnetID]
	if !ok {
		m.skip("port", p.ID, "fixed IP %s: its subnet %s was not read or not mapped", f.IPAddress, f.SubnetID)
		return
	}
	a, err := netip.ParseAddr(f.IPAddress)
	if err != nil {
		m.skip("port", p.ID, "fixed IP %q: %v", f.IPAddress, err)
		return
	}
	if !sn.prefix.Contains(a) {
		m.skip("port", p.ID, "fixed IP %s is outside its subnet %s (%s)", a, f.SubnetID, sn.prefix)
		return
	}
	m.add(&resource.IPAddress{
		M:           m.meta(),
		Namespace:   sn.namespace,
		Address:     netip.PrefixFrom(a, sn.prefix.Bits()),
		Status:      m.cfg.Status,
		DNSName:     p.DNSName,
		Description: cmp.Or(p.Name, p.DeviceOwner),
	}, p.NetworkID, p.ID)
}
