// Package benchdata generates the synthetic sites the benchmarks plan: the
// same data for the planner alone and for the whole plan step, so their
// figures compare.
package benchdata

import (
	"fmt"
	"net/netip"

	"github.com/ipsync/ipsync/internal/resource"
)

// State builds n desired objects owned by me (2% VLANs, 10% prefixes, 88% IPs) and
// the target's view of them: 1% changed, 0.5% missing, plus 0.5% extra owned
// objects that are no longer desired.
func State(n int, me resource.Owner) (desired, current []resource.Object) {
	nVLAN, nPrefix := n*2/100, n*10/100
	nIP := n - nVLAN - nPrefix
	desired = make([]resource.Object, 0, n)
	for i := range nVLAN {
		desired = append(desired, &resource.VLAN{Group: fmt.Sprintf("leaf-%03d-network", i/4000), VID: uint16(1 + i%4000),
			Name: fmt.Sprintf("tenant-net-%d", i), Status: "Active", Tags: []string{"tenant"}})
	}
	for i := range nPrefix {
		desired = append(desired, &resource.Prefix{Namespace: "site-a", Prefix: netip.PrefixFrom(v4(uint32(10<<24|i<<8)), 24),
			Type: resource.PrefixNetwork, Status: "Active", VLAN: resource.VLANKey("leaf-000-network", uint16(1+i%4000)), Tenant: "tenant-x"})
	}
	for i := range nIP {
		net, host := i%nPrefix, 1+i/nPrefix
		desired = append(desired, &resource.IPAddress{Namespace: "site-a", Address: netip.PrefixFrom(v4(uint32(10<<24|net<<8|host)), 24),
			Status: "Active", DNSName: fmt.Sprintf("host-%d.example.net", i)})
	}
	current = make([]resource.Object, 0, n)
	for i, d := range desired {
		switch {
		case i%200 == 1: // 0.5% missing on the target
			continue
		case i%100 == 2: // 1% changed
			current = append(current, changedCopy(d, me))
		default:
			current = append(current, Copy(d, me))
		}
		if i%200 == 3 { // 0.5% extra: owned, no longer desired
			current = append(current, extra(d, i, me))
		}
	}
	for _, o := range desired {
		o.Meta().Owner = me
	}
	return desired, current
}

func v4(u uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(u >> 24), byte(u >> 16), byte(u >> 8), byte(u)})
}

// Copy is the target's unchanged view of o, owned by me.
func Copy(o resource.Object, me resource.Owner) resource.Object {
	c := resource.Clone(o)
	c.Meta().Owner, c.Meta().ID, c.Meta().Version = me, "00000000-0000-4000-8000-000000000000", "2026-12-01T00:00:00Z"
	return c
}

func changedCopy(o resource.Object, me resource.Owner) resource.Object {
	c, _ := Changed(Copy(o, me))
	return c
}

// Changed is a copy of o with its description changed, for a VLAN, prefix
// or IP address; ok is false, and o is returned, for the other kinds.
func Changed(o resource.Object) (c resource.Object, ok bool) {
	c = resource.Clone(o)
	switch x := c.(type) {
	case *resource.VLAN:
		x.Description = "changed"
	case *resource.Prefix:
		x.Description = "changed"
	case *resource.IPAddress:
		x.Description = "changed"
	default:
		return o, false
	}
	return c, true
}

func extra(o resource.Object, i int, me resource.Owner) resource.Object {
	c := Copy(o, me)
	switch x := c.(type) {
	case *resource.VLAN:
		// A group of its own for each 4,000 VLANs, as the desired VLANs
		// have: in one group, VIDs 1-4000 would repeat every 20 extras,
		// and no server holds two VLANs of a group with one VID.
		x.Group = fmt.Sprintf("retired-%03d-network", i/4000)
	case *resource.Prefix:
		x.Namespace = "retired"
	case *resource.IPAddress:
		x.Address = netip.PrefixFrom(v4(uint32(200<<24|i)), 24)
	}
	return c
}

// Resolved is State with the namespace, VLAN groups and VLANs its objects
// refer to, on both sides, so that every reference resolves as on a real
// site: the data of the whole plan step's benchmarks.
func Resolved(n int, me resource.Owner) (desired, current []resource.Object) {
	desired, current = State(n, me)
	site := []resource.Object{&resource.Namespace{M: resource.Meta{Owner: me}, Name: "site-a"}}
	for i := range n*2/100/4000 + 1 {
		site = append(site, &resource.VLANGroup{M: resource.Meta{Owner: me}, Name: fmt.Sprintf("leaf-%03d-network", i)})
	}
	// Prefixes are on VLANs 1-4000 of the first group; smaller sites
	// generate fewer VLANs than that.
	for vid := n*2/100 + 1; vid <= min(4000, n*10/100); vid++ {
		site = append(site, &resource.VLAN{M: resource.Meta{Owner: me}, Group: "leaf-000-network", VID: uint16(vid), Name: fmt.Sprintf("v%d", vid), Status: "Active"})
	}
	desired = append(site, desired...)
	for _, o := range site {
		current = append(current, Copy(o, me))
	}
	return desired, current
}
