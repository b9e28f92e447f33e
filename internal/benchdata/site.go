package benchdata

import (
	"fmt"
	"net/netip"

	"github.com/ipsync/ipsync/internal/resource"
)

// Site is a site as a first sync writes it to a target: 10 namespaces,
// 20 VLAN groups with prefixes/100 VLANs each, prefixes /24s (each on a
// VLAN), and 9 IP addresses in the first 80% of the prefixes, 8 in the
// rest: 2% VLANs, 10% prefixes, 88% IPs, with prefixes a multiple of 100.
// Every name starts with prefix, so that two sets of one size do not
// collide in one target.
func Site(prefixes int, prefix string, o resource.Owner) []resource.Object {
	const namespaces, groups = 10, 20
	vlansPerGroup := prefixes / 100
	meta := func() resource.Meta { return resource.Meta{Owner: o} }
	var objs []resource.Object
	for n := range namespaces {
		objs = append(objs, &resource.Namespace{M: meta(), Name: fmt.Sprintf(prefix+"site-%d", n)})
	}
	for g := range groups {
		objs = append(objs, &resource.VLANGroup{M: meta(), Name: fmt.Sprintf(prefix+"leaf-%02d", g)})
		for v := range vlansPerGroup {
			objs = append(objs, &resource.VLAN{M: meta(), Group: fmt.Sprintf(prefix+"leaf-%02d", g), VID: uint16(100 + v), Name: fmt.Sprintf("net-%d-%d", g, v), Status: "Active"})
		}
	}
	var ips []resource.Object
	for i := range prefixes {
		ns := i % namespaces
		k := i / namespaces
		p := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(ns*4 + k/256), byte(k % 256), 0}), 24)
		objs = append(objs, &resource.Prefix{M: meta(), Namespace: fmt.Sprintf(prefix+"site-%d", ns), Prefix: p, Type: resource.PrefixNetwork,
			Status: "Active", VLAN: resource.VLANKey(fmt.Sprintf(prefix+"leaf-%02d", i%groups), uint16(100+(i/groups)%vlansPerGroup))})
		hosts := 9
		if i >= prefixes*4/5 {
			hosts = 8
		}
		for h := range hosts {
			a := p.Addr().As4()
			a[3] = byte(h + 1)
			ips = append(ips, &resource.IPAddress{M: meta(), Namespace: fmt.Sprintf(prefix+"site-%d", ns), Address: netip.PrefixFrom(netip.AddrFrom4(a), 24), Status: "Active"})
		}
	}
	return append(objs, ips...)
}
