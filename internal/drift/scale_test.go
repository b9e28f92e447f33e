package drift

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// largeReport is a site whose target drifted in bulk: n drifting objects
// (n a multiple of 100), most of them IP addresses as in a site that lost
// its target's records, some in agreement, and leaks.
func largeReport(n int) *Report {
	me := resource.Owner("neutron:a11")
	var desired, current []resource.Object
	ip := func(i int, desc string) *resource.IPAddress {
		a := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		return &resource.IPAddress{M: resource.Meta{Owner: me}, Namespace: "Global", Address: netip.PrefixFrom(a, 24),
			Status: "Active", DNSName: fmt.Sprintf("port-%d.a11.example.net", i), Description: desc}
	}
	prefix := func(i int, desc string) *resource.Prefix {
		p := netip.PrefixFrom(netip.AddrFrom4([4]byte{172, 16 + byte(i>>16), byte(i >> 8), byte(i)}), 32)
		return &resource.Prefix{M: resource.Meta{Owner: me}, Namespace: "Global", Prefix: p, Type: resource.PrefixNetwork, Status: "Active", Description: desc}
	}
	// Per hundred drifting objects: IP addresses 40 missing, 30 different,
	// 20 extra; prefixes 6 missing, 2 different; VLANs 1 missing, 1 extra.
	for h := range n / 100 {
		for j := range 100 {
			i := h*100 + j
			switch {
			case j < 40:
				desired = append(desired, ip(i, "tenant port"))
			case j < 70:
				desired = append(desired, ip(i, "tenant port"))
				current = append(current, ip(i, "edited by hand"))
			case j < 90:
				current = append(current, ip(i, "gone from Neutron"))
			case j < 96:
				desired = append(desired, prefix(i, "subnet"))
			case j < 98:
				desired = append(desired, prefix(i, "subnet"))
				current = append(current, prefix(i, "old subnet"))
			case j == 98:
				desired = append(desired, &resource.VLAN{M: resource.Meta{Owner: me}, Group: "a11-12-network", VID: uint16(h%4000 + 1), Name: fmt.Sprintf("tenant-net-%d", h)})
			default:
				current = append(current, &resource.VLAN{M: resource.Meta{Owner: me}, Group: "a11-99-network", VID: uint16(h%4000 + 1), Name: fmt.Sprintf("old-net-%d", h)})
			}
		}
		// In agreement.
		same := ip(1<<22+h, "tenant port")
		desired, current = append(desired, same), append(current, same)
	}
	var leaks []Leak
	for i := range n / 1000 {
		leaks = append(leaks, Leak{Kind: "segment", Key: fmt.Sprintf("seg-%d", i), Message: "VLAN segment without ports"})
	}
	o := FromPlan(plan.Make(desired, current, plan.DefaultPolicy(me)), leaks)
	return &Report{GeneratedAt: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC), Target: "https://nautobot.example.com",
		Owners: []Owner{o, {Owner: "static:deploy", Summary: []plan.SummaryRow{{Kind: resource.KindVLAN, Noop: 12}}, Items: []Item{}}}}
}
