package neutron

import (
	"encoding/json"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/resource"
)

const site = "a11"

var owner = resource.NeutronOwner(site)

func wantVLAN(group string, vid uint16, name string) *resource.VLAN {
	return &resource.VLAN{M: resource.Meta{Owner: owner}, Group: group, VID: vid, Name: name, Status: "Active"}
}

func wantPrefix(ns, cidr, vlan string, vni uint32, desc string) *resource.Prefix {
	return &resource.Prefix{M: resource.Meta{Owner: owner}, Namespace: ns, Prefix: netip.MustParsePrefix(cidr),
		Type: resource.PrefixNetwork, Status: "Active", VLAN: vlan, VNI: vni, Description: desc}
}

func wantIP(ns, addr, dns, desc string) *resource.IPAddress {
	return &resource.IPAddress{M: resource.Meta{Owner: owner}, Namespace: ns, Address: netip.MustParsePrefix(addr),
		Status: "Active", DNSName: dns, Description: desc}
}

func vlanNet(id, name, physnet string, vid int) Network {
	return Network{ID: id, Name: name, ProjectID: "p1",
		Segments: []Segment{{NetworkID: id, NetworkType: "vlan", PhysicalNetwork: physnet, SegmentationID: vid}}}
}

func port(id, name, network string, ips ...FixedIP) Port {
	return Port{ID: id, Name: name, NetworkID: network, FixedIPs: ips}
}

func fip(subnet, ip string) FixedIP { return FixedIP{SubnetID: subnet, IPAddress: ip} }

// render prints objects one a line, so a failure shows what differs.
func render(objs []resource.Object) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		b, err := json.Marshal(o)
		if err != nil {
			panic(err)
		}
		out[i] = string(o.Kind()) + " " + string(b)
	}
	return out
}

// routed is a routed network with one segment on each of two leaf pairs,
// an IPv4 subnet on one and an IPv6 subnet on the other.
func routed() *Snapshot {
	return &Snapshot{
		Networks: []Network{{ID: "n-r", Name: "prov", ProjectID: "p1", Segments: []Segment{
			{NetworkID: "n-r", NetworkType: "vlan", PhysicalNetwork: "a11-12-network", SegmentationID: 110},
			{NetworkID: "n-r", NetworkType: "vlan", PhysicalNetwork: "a11-13-network", SegmentationID: 210},
		}}},
		Segments: []Segment{
			{ID: "s-13", NetworkID: "n-r", NetworkType: "vlan", PhysicalNetwork: "a11-13-network", SegmentationID: 210},
			{ID: "s-12", NetworkID: "n-r", Name: "leaf12", NetworkType: "vlan", PhysicalNetwork: "a11-12-network", SegmentationID: 110},
		},
		Subnets: []Subnet{
			{ID: "sn-4", Name: "prov-12", NetworkID: "n-r", SegmentID: "s-12", CIDR: "10.12.0.0/24", ProjectID: "p1"},
			{ID: "sn-6", Name: "prov-13", NetworkID: "n-r", SegmentID: "s-13", CIDR: "2001:db8:13::/64", ProjectID: "p1"},
		},
		Ports: []Port{
			port("p-1", "node-1", "n-r", fip("sn-4", "10.12.0.10")),
			port("p-2", "", "n-r", fip("sn-6", "2001:db8:13::a")),
		},
	}
}

func TestMap(t *testing.T) {
	tests := []struct {
		name       string
		snap       *Snapshot
		cfg        MapConfig
		want       []resource.Object
		wantReport Report
	}{
		{
			name: "routed network: one VLAN per segment, each in its own group",
			snap: routed(),
			want: []resource.Object{
				wantVLAN("a11-12-network", 110, "prov-s-12"),
				wantVLAN("a11-13-network", 210, "prov-s-13"),
				wantPrefix(site, "10.12.0.0/24", "a11-12-network/110", 0, "prov-12"),
				wantPrefix(site, "2001:db8:13::/64", "a11-13-network/210", 0, "prov-13"),
				wantIP(site, "10.12.0.10/24", "", "node-1"),
				wantIP(site, "2001:db8:13::a/64", "", ""),
			},
		},
		{
			name: "single-segment vlan network from provider attributes",
			snap: &Snapshot{
				Networks: []Network{vlanNet("n-1", "tenant-a", "b22-1-network", 333)},
				Subnets:  []Subnet{{ID: "sn-1", Name: "tenant-a-v4", NetworkID: "n-1", CIDR: "192.168.5.0/26"}},
				Ports: []Port{
					{ID: "p-1", NetworkID: "n-1", DeviceOwner: "network:router_interface", FixedIPs: []FixedIP{fip("sn-1", "192.168.5.1")}},
					{ID: "p-2", Name: "web", NetworkID: "n-1", DNSName: "web-1", FixedIPs: []FixedIP{fip("sn-1", "192.168.5.20")}},
				},
			},
			want: []resource.Object{
				wantVLAN("b22-1-network", 333, "tenant-a-n-1"),
				wantPrefix(site, "192.168.5.0/26", "b22-1-network/333", 0, "tenant-a-v4"),
				wantIP(site, "192.168.5.1/26", "", "network:router_interface"),
				wantIP(site, "192.168.5.20/26", "web-1", "web"),
			},
		},
		{
			name: "vxlan network: no VLAN, VNI on its prefixes",
			snap: &Snapshot{
				Networks: []Network{{ID: "n-x", Name: "overlay", Segments: []Segment{{NetworkID: "n-x", NetworkType: "vxlan", SegmentationID: 4242}}}},
				Subnets:  []Subnet{{ID: "sn-x", Name: "overlay-v4", NetworkID: "n-x", CIDR: "172.16.0.0/16"}},
				Ports:    []Port{port("p-x", "vm", "n-x", fip("sn-x", "172.16.3.4"))},
			},
			want: []resource.Object{
				wantPrefix(site, "172.16.0.0/16", "", 4242, "overlay-v4"),
				wantIP(site, "172.16.3.4/16", "", "vm"),
			},
		},
		{
			name: "flat network: prefixes and IPs only",
			snap: &Snapshot{
				Networks: []Network{{ID: "n-f", Name: "ext", Segments: []Segment{{NetworkID: "n-f", NetworkType: "flat", PhysicalNetwork: "public"}}}},
				Subnets:  []Subnet{{ID: "sn-f", Name: "ext-v4", NetworkID: "n-f", CIDR: "203.0.113.0/24"}},
				Ports:    []Port{port("p-f", "gw", "n-f", fip("sn-f", "203.0.113.1"))},
			},
			want: []resource.Object{
				wantPrefix(site, "203.0.113.0/24", "", 0, "ext-v4"),
				wantIP(site, "203.0.113.1/24", "", "gw"),
			},
		},
		{
			name: "physnet without VLAN group is skipped and reported",
			snap: &Snapshot{
				Networks: []Network{vlanNet("n-1", "ok", "a11-12-network", 120), vlanNet("n-2", "lost", "c99-network", 5)},
				Subnets:  []Subnet{{ID: "sn-2", NetworkID: "n-2", CIDR: "10.99.0.0/24"}},
				Ports:    []Port{port("p-1", "a", "n-1"), port("p-2", "b", "n-2", fip("sn-2", "10.99.0.5"))},
			},
			cfg: MapConfig{KnownGroups: map[string]bool{"a11-12-network": true}},
			want: []resource.Object{
				wantVLAN("a11-12-network", 120, "ok-n-1"),
				wantPrefix(site, "10.99.0.0/24", "", 0, ""),
				wantIP(site, "10.99.0.5/24", "", "b"),
			},
			wantReport: Report{UnknownGroups: []UnknownGroup{{
				SegmentRef: SegmentRef{NetworkID: "n-2", NetworkName: "lost", NetworkType: "vlan", PhysicalNetwork: "c99-network", SegmentationID: 5},
				Group:      "c99-network",
			}}},
		},
		{
			name: "physnet groups, namespace, status and tenants from config",
			snap: &Snapshot{
				Networks: []Network{vlanNet("n-1", "", "physnet1", 150)},
				Subnets:  []Subnet{{ID: "sn-1", Name: "s", NetworkID: "n-1", CIDR: "10.0.0.0/24", ProjectID: "p1"}},
				Ports:    []Port{port("p-1", "x", "n-1", fip("sn-1", "10.0.0.9"))},
			},
			cfg: MapConfig{Namespace: "a11-tenants", Status: "Reserved",
				PhysnetGroups:   map[string]string{"physnet1": "a11-12-network"},
				TenantByProject: map[string]string{"p1": "Team A"}},
			want: []resource.Object{
				&resource.VLAN{M: resource.Meta{Owner: owner}, Group: "a11-12-network", VID: 150, Name: "n-1", Status: "Reserved"},
				&resource.Prefix{M: resource.Meta{Owner: owner}, Namespace: "a11-tenants", Prefix: netip.MustParsePrefix("10.0.0.0/24"),
					Type: resource.PrefixNetwork, Status: "Reserved", VLAN: "a11-12-network/150", Tenant: "Team A", Description: "s"},
				&resource.IPAddress{M: resource.Meta{Owner: owner}, Namespace: "a11-tenants", Address: netip.MustParsePrefix("10.0.0.9/24"),
					Status: "Reserved", Description: "x"},
			},
		},
		{
			name: "namespace per network",
			snap: &Snapshot{
				Networks: []Network{vlanNet("n-1", "blue", "g", 101), vlanNet("n-2", "red", "g", 102), vlanNet("n-3", "red", "g", 103)},
				Subnets: []Subnet{
					{ID: "sn-1", NetworkID: "n-1", CIDR: "10.0.0.0/24"},
					{ID: "sn-2", NetworkID: "n-2", CIDR: "10.0.0.0/24"},
					{ID: "sn-3", NetworkID: "n-3", CIDR: "10.0.0.0/24"},
				},
				Ports: []Port{port("p-1", "", "n-1"), port("p-2", "", "n-2"), port("p-3", "", "n-3")},
			},
			cfg: MapConfig{NamespacePerNetwork: true},
			want: []resource.Object{
				&resource.Namespace{M: resource.Meta{Owner: owner}, Name: "a11/blue", Description: "Neutron network n-1"},
				&resource.Namespace{M: resource.Meta{Owner: owner}, Name: "a11/n-2", Description: "Neutron network n-2"},
				&resource.Namespace{M: resource.Meta{Owner: owner}, Name: "a11/n-3", Description: "Neutron network n-3"},
				wantVLAN("g", 101, "blue-n-1"),
				wantVLAN("g", 102, "red-n-2"),
				wantVLAN("g", 103, "red-n-3"),
				wantPrefix("a11/blue", "10.0.0.0/24", "g/101", 0, ""),
				wantPrefix("a11/n-2", "10.0.0.0/24", "g/102", 0, ""),
				wantPrefix("a11/n-3", "10.0.0.0/24", "g/103", 0, ""),
			},
		},
		{
			name: "same cidr twice in one namespace: the first subnet by id is kept",
			snap: &Snapshot{
				Networks: []Network{vlanNet("n-1", "one", "g", 101), vlanNet("n-2", "two", "g", 102)},
				Subnets: []Subnet{
					{ID: "sn-b", Name: "second", NetworkID: "n-2", CIDR: "10.0.0.0/24"},
					{ID: "sn-a", Name: "first", NetworkID: "n-1", CIDR: "10.0.0.0/24"},
				},
				Ports: []Port{port("p-2", "y", "n-2", fip("sn-b", "10.0.0.5")), port("p-1", "x", "n-1", fip("sn-a", "10.0.0.5"))},
			},
			want: []resource.Object{
				wantVLAN("g", 101, "one-n-1"),
				wantVLAN("g", 102, "two-n-2"),
				wantPrefix(site, "10.0.0.0/24", "g/101", 0, "first"),
				wantIP(site, "10.0.0.5/24", "", "x"),
			},
			wantReport: Report{Duplicates: []Duplicate{
				{Key: resource.Key{Kind: resource.KindPrefix, Name: "a11/10.0.0.0/24"}, Kept: "sn-a", Dropped: "sn-b"},
				{Key: resource.Key{Kind: resource.KindIPAddress, Name: "a11/10.0.0.5"}, Kept: "p-1", Dropped: "p-2"},
			}},
		},
		{
			name: "vlan segments without ports are reported; DHCP ports do not count",
			snap: &Snapshot{
				Networks: []Network{vlanNet("n-1", "idle", "g", 101), vlanNet("n-2", "busy", "g", 102)},
				Subnets:  []Subnet{{ID: "sn-1", NetworkID: "n-1", CIDR: "10.1.0.0/24"}},
				Ports: []Port{
					{ID: "p-d", NetworkID: "n-1", DeviceOwner: DeviceOwnerDHCP, FixedIPs: []FixedIP{fip("sn-1", "10.1.0.2")}},
					port("p-b", "", "n-2"),
				},
			},
			want: []resource.Object{
				wantVLAN("g", 101, "idle-n-1"),
				wantVLAN("g", 102, "busy-n-2"),
				wantPrefix(site, "10.1.0.0/24", "g/101", 0, ""),
				wantIP(site, "10.1.0.2/24", "", DeviceOwnerDHCP),
			},
			wantReport: Report{UnusedSegments: []SegmentRef{
				{NetworkID: "n-1", NetworkName: "idle", NetworkType: "vlan", PhysicalNetwork: "g", SegmentationID: 101},
			}},
		},
		{
			name: "routed network: a segment whose subnets have no ports is unused",
			snap: func() *Snapshot { s := routed(); s.Ports = s.Ports[:1]; return s }(),
			want: []resource.Object{
				wantVLAN("a11-12-network", 110, "prov-s-12"),
				wantVLAN("a11-13-network", 210, "prov-s-13"),
				wantPrefix(site, "10.12.0.0/24", "a11-12-network/110", 0, "prov-12"),
				wantPrefix(site, "2001:db8:13::/64", "a11-13-network/210", 0, "prov-13"),
				wantIP(site, "10.12.0.10/24", "", "node-1"),
			},
			wantReport: Report{UnusedSegments: []SegmentRef{
				{NetworkID: "n-r", NetworkName: "prov", SegmentID: "s-13", NetworkType: "vlan", PhysicalNetwork: "a11-13-network", SegmentationID: 210},
			}},
		},
		{
			name: "records that cannot be mapped are skipped and reported",
			snap: &Snapshot{
				Networks: []Network{vlanNet("n-1", "n", "g", 101), vlanNet("n-bad", "bad", "g", 4095)},
				Subnets: []Subnet{
					{ID: "sn-1", NetworkID: "n-1", CIDR: "10.1.0.0/24"},
					{ID: "sn-bad", NetworkID: "n-1", CIDR: "10.1.0.0/33"},
					{ID: "sn-orphan", NetworkID: "n-gone", CIDR: "10.2.0.0/24"},
				},
				Ports: []Port{port("p-1", "", "n-1", fip("sn-1", "10.9.9.9"), fip("sn-gone", "10.1.0.7"), fip("sn-1", "10.1.0.8"))},
			},
			want: []resource.Object{
				wantVLAN("g", 101, "n-n-1"),
				wantPrefix(site, "10.1.0.0/24", "g/101", 0, ""),
				wantIP(site, "10.1.0.8/24", "", ""),
			},
			wantReport: Report{
				UnusedSegments: []SegmentRef{{NetworkID: "n-bad", NetworkName: "bad", NetworkType: "vlan", PhysicalNetwork: "g", SegmentationID: 4095}},
				Skipped: []Skipped{
					{Kind: "segment", ID: "n-bad"},
					{Kind: "subnet", ID: "sn-bad"},
					{Kind: "subnet", ID: "sn-orphan"},
					{Kind: "port", ID: "p-1"},
					{Kind: "port", ID: "p-1"},
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Site = site
			got, report := Map(tt.snap, cfg)
			// Reasons are for people; the test checks they are there.
			for i, sk := range report.Skipped {
				if sk.Reason == "" {
					t.Errorf("skipped %s %s has no reason", sk.Kind, sk.ID)
				}
				report.Skipped[i].Reason = ""
			}
			if g, w := render(got), render(tt.want); !slices.Equal(g, w) {
				t.Errorf("Map objects:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
			}
			if !reflect.DeepEqual(report, tt.wantReport) {
				t.Errorf("Map report = %+v, want %+v", report, tt.wantReport)
			}
		})
	}
}

// The same records in any order give the same objects and report.
func TestMapIgnoresRecordOrder(t *testing.T) {
	s := routed()
	s.Networks = append(s.Networks, vlanNet("n-1", "a", "g", 101), vlanNet("n-2", "b", "g", 101))
	s.Subnets = append(s.Subnets, Subnet{ID: "sn-x", NetworkID: "n-2", CIDR: "10.12.0.0/24"})
	wantObjs, wantReport := Map(s, MapConfig{Site: site})

	slices.Reverse(s.Networks)
	slices.Reverse(s.Segments)
	slices.Reverse(s.Subnets)
	slices.Reverse(s.Ports)
	gotObjs, gotReport := Map(s, MapConfig{Site: site})
	if g, w := render(gotObjs), render(wantObjs); !slices.Equal(g, w) {
		t.Errorf("Map of reversed records:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
	if !reflect.DeepEqual(gotReport, wantReport) {
		t.Errorf("Map report of reversed records = %+v, want %+v", gotReport, wantReport)
	}
	if len(wantReport.Duplicates) != 2 {
		t.Errorf("duplicates = %+v, want the VLAN g/101 and the prefix a11/10.12.0.0/24", wantReport.Duplicates)
	}
}
