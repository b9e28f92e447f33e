package emulator

import (
	"fmt"
	"net/netip"
	"strings"
)

func ipTypes() []choice {
	return []choice{{"dhcp", "DHCP"}, {"host", "Host"}, {"slaac", "SLAAC"}}
}

func ipAddressKind() *kindDef {
	return &kindDef{
		ct: ctIPAddress, path: "ipam/ip-addresses", model: "IPAddress", label: "IP address",
		decode: func(d *decoder, r *record) {
			d.ipnet("address", &r.net, true)
			if d.create && !d.has("type") {
				r.typ = "host"
			}
			d.choice("type", &r.typ, ipTypes(), false)
			d.ref("status", ctStatus, &r.status, true, false, ctIPAddress)
			d.ref("role", ctRole, &r.role, false, true, ctIPAddress)
			d.ref("tenant", ctTenant, &r.tenant, false, true, "")
			d.ref("parent", ctPrefix, &r.parent, false, true, "")
			if d.has("namespace") {
				r.setNamespace = true
				d.ref("namespace", ctNamespace, &r.newNamespace, false, false, "")
			}
			d.str("dns_name", &r.dnsName, false, true)
			if d.s.version.atLeast(3, 0) {
				// 3.x lowercases it in clean(); 2.4's check of it,
				// "if not self.dns_name.islower:", never fires.
				r.dnsName = strings.ToLower(r.dnsName)
			}
			d.str("description", &r.description, false, true)
			d.refList("tags", ctTag, &r.tags, ctIPAddress)
			d.customFields(&r.cf)
		},
		check:     checkIPAddress,
		saveCheck: func(s *store, r, _ *record) errorDict { return hostTaken(s, r) },
		after: func(_ *store, r, _ *record) errorDict {
			r.setNamespace, r.newNamespace = false, ""
			return nil
		},
		encode: func(e *encoder, r *record) {
			e.field("address", r.net.String())
			e.field("host", r.net.Addr().String())
			e.w.key("mask_length")
			e.w.int(int64(r.net.Bits()))
			e.field("type", r.typ)
			e.w.key("ip_version")
			e.w.int(ipVersion(r.net))
			e.field("dns_name", r.dnsName)
			e.field("description", r.description)
			e.ref("status", ctStatus, r.status)
			e.ref("role", ctRole, r.role)
			e.ref("parent", ctPrefix, r.parent)
			e.ref("tenant", ctTenant, r.tenant)
			e.w.key("nat_inside")
			e.w.null()
			if !e.excludeM2M {
				for _, f := range []string{"nat_outside_list", "interfaces", "vm_interfaces"} {
					e.w.key(f)
					e.w.open('[')
					e.w.close(']')
				}
			}
			e.tagsAndCF(r)
		},
		display: func(_ *store, r *record) string { return r.net.String() },
		less: func(_ *store, a, b *record) bool {
			if va, vb := ipVersion(a.net), ipVersion(b.net); va != vb {
				return va < vb
			}
			if c := a.net.Addr().Compare(b.net.Addr()); c != 0 {
				return c < 0
			}
			return a.net.Bits() < b.net.Bits()
		},
		filters: common(map[string]filterFunc{
			"address":     fAddress(),
			"namespace":   fRef(ctNamespace, func(r *record) string { return r.namespace }),
			"parent":      fPK(func(r *record) string { return r.parent }),
			"status":      fRef(ctStatus, func(r *record) string { return r.status }),
			"role":        fRef(ctRole, func(r *record) string { return r.role }),
			"tenant":      fRef(ctTenant, func(r *record) string { return r.tenant }),
			"dns_name":    fExact(func(r *record) string { return r.dnsName }),
			"type":        fExact(func(r *record) string { return r.typ }),
			"mask_length": fInt(func(r *record) int64 { return int64(r.net.Bits()) }),
			"ip_version":  fInt(func(r *record) int64 { return ipVersion(r.net) }),
			"tags":        fTags(),
		}),
	}
}

// checkIPAddress follows IPAddressSerializer.validate and IPAddress.clean:
// a new address needs a parent or a namespace; its parent is always the
// closest prefix containing the host in that namespace; the host is
// unique under its parent and fixed once created.
func checkIPAddress(s *store, r, old *record) errorDict {
	e := errorDict{}
	explicitParent := r.parent
	if old != nil {
		explicitParent = ""
		if r.parent != old.parent {
			explicitParent = r.parent
		}
	}
	if old == nil && !r.setNamespace && r.parent == "" {
		e.add("__all__", "One of parent or namespace must be provided")
		return e
	}
	if old != nil && old.net.Addr() != r.net.Addr() {
		e.add("__all__", "Host address cannot be changed once created")
		return e
	}
	ns := r.namespace
	switch {
	case r.setNamespace:
		ns = r.newNamespace
	case explicitParent != "":
		ns = s.get(ctPrefix, explicitParent).namespace
	}
	if old == nil || r.setNamespace || explicitParent != "" {
		host := netip.PrefixFrom(r.net.Addr(), r.net.Addr().BitLen())
		closest := s.closest(ns, host, true)
		if closest == nil {
			e.add("namespace", fmt.Sprintf("No suitable parent Prefix for %s exists in Namespace %s", r.net.Addr(), nsName(s, ns)))
			return e
		}
		if explicitParent != "" && explicitParent != closest.id {
			p := s.get(ctPrefix, explicitParent)
			e.add("parent", fmt.Sprintf("%s cannot be assigned as the parent of %s.  In namespace %s, the expected parent would be %s.",
				p.net, r.net, nsName(s, ns), closest.net))
			return e
		}
		r.parent, r.namespace = closest.id, ns
	}
	if o := s.ips[r.namespace][r.net.Addr()]; o != nil && o.id != r.id {
		e["__all__"] = append(hostTaken(s, r)["__all__"], "IP address with this Parent and Host already exists.")
	}
	return e
}

// hostTaken is the check IPAddress.clean makes from Nautobot 3.0 on, which
// runs again when the address is saved: that a bulk create's second
// address with one host fails with a ValidationError there, not with the
// database's IntegrityError as in 2.4.
func hostTaken(s *store, r *record) errorDict {
	e := errorDict{}
	if o := s.ips[r.namespace][r.net.Addr()]; o != nil && o.id != r.id && s.version.atLeast(3, 0) {
		parent := ""
		if p := s.get(ctPrefix, r.parent); p != nil {
			parent = p.net.String()
		}
		e.add("__all__", fmt.Sprintf("IP address %s already exists in %s.", r.net, parent))
	}
	return e
}
