package neutron

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/resource"
)

// realSite is what TestRealReadAndMap creates: a single-segment VLAN
// network, a VXLAN network, a flat network and a routed network with a
// segment on each of two leaf pairs, a subnet on each segment, and ports.
type realSite struct {
	run                                 runID
	single, vx, flat, routed            map[string]any
	segSingle, seg12, seg13             map[string]any
	snSingle, snVx, snFlat, sn12, sn136 map[string]any
	pSingle, pVx, pFlat, p12, p136      map[string]any
}

func (s *realSite) v4(third int) string { return fmt.Sprintf("10.%d.%d", s.run.octet, third) }
func (s *realSite) v6() string          { return fmt.Sprintf("2001:db8:%s:13", s.run.hex) }

func buildRealSite(t *testing.T, a *admin) *realSite {
	s := &realSite{run: newRunID()}
	n := s.run.name
	s.single = a.create("networks", map[string]any{"name": n + "-single",
		"provider:network_type": "vlan", "provider:physical_network": "b22-1-network"})
	s.vx = a.create("networks", map[string]any{"name": n + "-vx", "provider:network_type": "vxlan"})
	s.flat = a.create("networks", map[string]any{"name": n + "-flat",
		"provider:network_type": "flat", "provider:physical_network": n + "-flat"})
	s.routed = a.create("networks", map[string]any{"name": n + "-routed",
		"provider:network_type": "vlan", "provider:physical_network": "a11-12-network"})
	onlySegment := func(net map[string]any) map[string]any {
		var segs struct{ Segments []map[string]any }
		a.call(http.MethodGet, "/segments?network_id="+str(net, "id"), nil, &segs)
		if len(segs.Segments) != 1 {
			t.Fatalf("network %s has segments %v, want one", str(net, "name"), segs.Segments)
		}
		return segs.Segments[0]
	}
	s.segSingle = onlySegment(s.single)
	s.seg12 = onlySegment(s.routed)
	s.seg13 = a.create("segments", map[string]any{"network_id": str(s.routed, "id"), "name": "leaf13",
		"network_type": "vlan", "physical_network": "a11-13-network"})

	subnet := func(net map[string]any, name, cidr string, seg map[string]any) map[string]any {
		attrs := map[string]any{"network_id": str(net, "id"), "name": name, "cidr": cidr, "ip_version": 4, "enable_dhcp": false}
		if strings.Contains(cidr, ":") {
			attrs["ip_version"] = 6
		}
		if seg != nil {
			attrs["segment_id"] = str(seg, "id")
		}
		return a.create("subnets", attrs)
	}
	s.snSingle = subnet(s.single, n+"-single-v4", s.v4(1)+".0/24", nil)
	s.snVx = subnet(s.vx, n+"-vx-v4", s.v4(2)+".0/24", nil)
	s.snFlat = subnet(s.flat, n+"-flat-v4", s.v4(3)+".0/24", nil)
	s.sn12 = subnet(s.routed, n+"-routed-12", s.v4(12)+".0/24", s.seg12)
	s.sn136 = subnet(s.routed, n+"-routed-13-v6", s.v6()+"::/64", s.seg13)

	port := func(net, sn map[string]any, ip string, attrs map[string]any) map[string]any {
		attrs["network_id"] = str(net, "id")
		attrs["fixed_ips"] = []map[string]string{{"subnet_id": str(sn, "id"), "ip_address": ip}}
		return a.create("ports", attrs)
	}
	s.pSingle = port(s.single, s.snSingle, s.v4(1)+".10", map[string]any{"name": "web", "dns_name": "web-1", "binding:host_id": "host-a"})
	s.pVx = port(s.vx, s.snVx, s.v4(2)+".20", map[string]any{"device_owner": "compute:nova"})
	s.pFlat = port(s.flat, s.snFlat, s.v4(3)+".30", map[string]any{"name": "gw"})
	s.p12 = port(s.routed, s.sn12, s.v4(12)+".40", map[string]any{"name": "node-12"})
	s.p136 = port(s.routed, s.sn136, s.v6()+"::40", map[string]any{"name": "node-13"})
	return s
}

// want is every object the site should map to.
func (s *realSite) want() []resource.Object {
	const ns = "it"
	vlan := func(seg map[string]any, physnet, name string) *resource.VLAN {
		return &resource.VLAN{M: resource.Meta{Owner: resource.NeutronOwner(ns)}, Group: physnet,
			VID: uint16(num(seg, "segmentation_id")), Name: name, Status: "Active"}
	}
	pfx := func(cidr string, vlan *resource.VLAN, vni int, sn map[string]any) *resource.Prefix {
		p := &resource.Prefix{M: resource.Meta{Owner: resource.NeutronOwner(ns)}, Namespace: ns, Prefix: netip.MustParsePrefix(cidr),
			Type: resource.PrefixNetwork, Status: "Active", VNI: uint32(vni), Description: str(sn, "name")}
		if vlan != nil {
			p.VLAN = vlan.Key().Name
		}
		return p
	}
	ip := func(addr, dns, desc string) *resource.IPAddress {
		return &resource.IPAddress{M: resource.Meta{Owner: resource.NeutronOwner(ns)}, Namespace: ns,
			Address: netip.MustParsePrefix(addr), Status: "Active", DNSName: dns, Description: desc}
	}
	n := s.run.name
	// A VLAN is named by its network and the first 8 characters of its
	// segment's id.
	named := func(net string, seg map[string]any) string { return n + "-" + net + "-" + str(seg, "id")[:8] }
	vSingle := vlan(s.segSingle, "b22-1-network", named("single", s.segSingle))
	v12 := vlan(s.seg12, "a11-12-network", named("routed", s.seg12))
	v13 := vlan(s.seg13, "a11-13-network", named("routed", s.seg13))
	return []resource.Object{
		vSingle, v12, v13,
		pfx(s.v4(1)+".0/24", vSingle, 0, s.snSingle),
		pfx(s.v4(2)+".0/24", nil, num(s.vx, "provider:segmentation_id"), s.snVx),
		pfx(s.v4(3)+".0/24", nil, 0, s.snFlat),
		pfx(s.v4(12)+".0/24", v12, 0, s.sn12),
		pfx(s.v6()+"::/64", v13, 0, s.sn136),
		ip(s.v4(1)+".10/24", "web-1", "web"),
		ip(s.v4(2)+".20/24", "", "compute:nova"),
		ip(s.v4(3)+".30/24", "", "gw"),
		ip(s.v4(12)+".40/24", "", "node-12"),
		ip(s.v6()+"::40/64", "", "node-13"),
	}
}

// pick returns the objects of got with the keys of want, in want's order.
func pick(got, want []resource.Object) []resource.Object {
	byKey := map[resource.Key]resource.Object{}
	for _, o := range got {
		byKey[o.Key()] = o
	}
	var out []resource.Object
	for _, w := range want {
		if o, ok := byKey[w.Key()]; ok {
			out = append(out, o)
		}
	}
	return out
}

func ids(recs any) map[string]bool {
	out := map[string]bool{}
	switch rs := recs.(type) {
	case []Network:
		for _, r := range rs {
			out[r.ID] = true
		}
	case []Segment:
		for _, r := range rs {
			out[r.ID] = true
		}
	case []Subnet:
		for _, r := range rs {
			out[r.ID] = true
		}
	case []Port:
		for _, r := range rs {
			out[r.ID] = true
		}
	}
	return out
}

func TestRealReadAndMap(t *testing.T) {
	a, r := realReader(t)
	site := buildRealSite(t, a)
	ctx := context.Background()

	snap, err := r.Read(ctx)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	objs, report := Map(snap, MapConfig{Site: "it"})
	want := site.want()
	if g, w := render(pick(objs, want)), render(want); !slices.Equal(g, w) {
		t.Errorf("Map of the real site:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
	for _, u := range report.UnusedSegments {
		if strings.HasPrefix(u.NetworkName, site.run.name) {
			t.Errorf("segment %+v reported unused, but it has ports", u)
		}
	}
	var host string
	for _, p := range snap.Ports {
		if p.ID == str(site.pSingle, "id") {
			host = p.HostID
		}
	}
	if host != "host-a" {
		t.Errorf("port %s binding:host_id = %q, want host-a", str(site.pSingle, "id"), host)
	}

	t.Run("small pages read the same records", func(t *testing.T) {
		small, err := NewReader(ctx, Config{Endpoint: a.base, Auth: AuthNoauth, PageSize: 2}, discard())
		if err != nil {
			t.Fatalf("NewReader: %v", err)
		}
		s2, err := small.Read(ctx)
		if err != nil {
			t.Fatalf("Read with page size 2: %v", err)
		}
		if got, want := len(s2.Ports), len(snap.Ports); got != want || small.Requests() <= int64(want/2) {
			t.Errorf("Read with page size 2 = %d ports in %d requests, want %d ports in more than %d requests", got, small.Requests(), want, want/2)
		}
		objs2, _ := Map(s2, MapConfig{Site: "it"})
		if g, w := render(pick(objs2, want)), render(want); !slices.Equal(g, w) {
			t.Errorf("Map of a read with page size 2:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
		}
	})

	t.Run("narrowed read by network", func(t *testing.T) {
		s, err := r.ReadNetworks(ctx, []string{str(site.routed, "id"), str(site.single, "id")})
		if err != nil {
			t.Fatalf("ReadNetworks: %v", err)
		}
		got := []int{len(s.Networks), len(s.Segments), len(s.Subnets), len(s.Ports)}
		if want := []int{2, 3, 3, 3}; !slices.Equal(got, want) || s.Ranges != nil {
			t.Errorf("ReadNetworks counts (networks, segments, subnets, ports) = %v, ranges %v; want %v and no ranges", got, s.Ranges, want)
		}
	})

	t.Run("deleted records disappear", func(t *testing.T) {
		a.remove("ports", str(site.pVx, "id"))
		a.remove("networks", str(site.vx, "id")) // takes its subnet along
		a.remove("ports", str(site.pFlat, "id"))
		s, err := r.Read(ctx)
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		gone := []struct {
			what string
			set  map[string]bool
			id   string
		}{
			{"network", ids(s.Networks), str(site.vx, "id")},
			{"subnet", ids(s.Subnets), str(site.snVx, "id")},
			{"port", ids(s.Ports), str(site.pVx, "id")},
			{"port", ids(s.Ports), str(site.pFlat, "id")},
		}
		for _, g := range gone {
			if g.set[g.id] {
				t.Errorf("deleted %s %s is still read", g.what, g.id)
			}
		}
		if !ids(s.Subnets)[str(site.snFlat, "id")] {
			t.Errorf("subnet %s vanished with its port", str(site.snFlat, "id"))
		}
		objs, _ := Map(s, MapConfig{Site: "it"})
		var keys []string
		for _, o := range pick(objs, want) {
			keys = append(keys, o.Key().String())
		}
		for _, k := range []string{"prefix it/" + site.v4(2) + ".0/24", "ip_address it/" + site.v4(2) + ".20", "ip_address it/" + site.v4(3) + ".30"} {
			if slices.Contains(keys, k) {
				t.Errorf("%s is still mapped after its Neutron record was deleted", k)
			}
		}
		if !slices.Contains(keys, "prefix it/"+site.v4(3)+".0/24") {
			t.Errorf("prefix of the flat subnet is gone, want it kept: %v", keys)
		}
	})
}

func TestRealReadFailure(t *testing.T) {
	base := realNeutron(t)
	// A port nobody listens on, like a stopped server.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	for _, endpoint := range []string{closed, base + "/no-such-api"} {
		r, err := NewReader(context.Background(), Config{Endpoint: endpoint, Auth: AuthNoauth}, discard())
		if err != nil {
			t.Fatalf("NewReader(%s): %v", endpoint, err)
		}
		if s, err := r.Read(context.Background()); err == nil || s != nil {
			t.Errorf("Read from %s = %v, %v; want no snapshot and an error", endpoint, s, err)
		}
	}
	// A read cut short by its context is an error too.
	r := readerOf(t, base)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if s, err := r.Read(ctx); err == nil || s != nil {
		t.Errorf("Read with a cancelled context = %v, %v; want no snapshot and an error", s, err)
	}
}
