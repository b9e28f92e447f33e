package emulator

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/google/uuid"
)

func prefixTypes() []choice {
	return []choice{{"container", "Container"}, {"network", "Network"}, {"pool", "Pool"}}
}

func prefixKind() *kindDef {
	return &kindDef{
		ct: ctPrefix, path: "ipam/prefixes", model: "Prefix", label: "Prefix",
		decode: func(d *decoder, r *record) {
			d.ipnet("prefix", &r.net, true)
			if d.create && !d.has("type") {
				r.typ = "network"
			}
			d.choice("type", &r.typ, prefixTypes(), false)
			d.ref("status", ctStatus, &r.status, true, false, ctPrefix)
			d.ref("role", ctRole, &r.role, false, true, ctPrefix)
			d.ref("namespace", ctNamespace, &r.namespace, false, false, "")
			d.ref("tenant", ctTenant, &r.tenant, false, true, "")
			d.ref("vlan", ctVLAN, &r.vlan, false, true, "")
			d.str("description", &r.description, false, true)
			if d.has("location") {
				r.setLocation = true
				d.ref("location", ctLocation, &r.newLocation, false, true, "")
			}
			d.refList("tags", ctTag, &r.tags, ctPrefix)
			d.customFields(&r.cf)
		},
		check: func(s *store, r, old *record) errorDict {
			e := errorDict{}
			if r.namespace == "" {
				r.namespace = s.globalNamespace().id
			}
			r.net = r.net.Masked()
			if old != nil && (old.net != r.net || old.namespace != r.namespace) {
				// Nautobot moves a prefix and re-parents its subtree; the
				// emulator does not, and says so rather than get it wrong.
				e.add("__all__", "Changing the network or namespace of a prefix is not supported by this emulator; create a new Prefix instead.")
				return e
			}
			if r.setLocation && old != nil {
				if len(old.locations) > 1 {
					return precondition("This object has multiple Locations and so cannot be represented in the 2.0 or 2.1 REST API. Please correct the data or use a later API version.")
				}
				if msg := prefixLocationType(s, r.newLocation); msg != "" {
					e.add("locations", msg)
				}
			}
			if o := s.prefixes[r.namespace][r.net]; o != nil && o.id != r.id {
				e.add("__all__", "Prefix with this Namespace, Network and Prefix length already exists.")
			}
			if old == nil {
				r.parent = ""
				if p := s.closest(r.namespace, r.net, false); p != nil {
					r.parent = p.id
				}
			}
			return e
		},
		// A new prefix's location is assigned while it is saved, where a
		// location type that does not allow prefixes raises an error
		// Nautobot does not turn into a 400.
		saveCheck: func(s *store, r, old *record) errorDict {
			e := errorDict{}
			if msg := prefixLocationType(s, r.newLocation); old == nil && r.setLocation && msg != "" {
				e.add("locations", msg)
			}
			return e
		},
		after: func(s *store, r, old *record) errorDict {
			if old == nil {
				s.adoptChildren(r)
			}
			if r.setLocation {
				r.setLocation = false
				for _, a := range append([]*record(nil), s.assignments[r.id]...) {
					s.logChange(actionDelete, a)
					s.remove(a)
				}
				if r.newLocation != "" {
					now := s.stamp()
					a := &record{ct: ctPrefixLoc, id: uuid.NewString(), created: now, updated: now, prefix: r.id, location: r.newLocation}
					s.insert(a)
					s.logChange(actionCreate, a)
				}
			}
			return nil
		},
		encode: func(e *encoder, r *record) {
			e.field("prefix", r.net.String())
			e.field("network", r.net.Addr().String())
			e.field("broadcast", lastAddr(r.net).String())
			e.w.key("prefix_length")
			e.w.int(int64(r.net.Bits()))
			e.w.key("type")
			choiceValue(e, prefixTypes(), r.typ)
			e.ref("status", ctStatus, r.status)
			e.ref("role", ctRole, r.role)
			e.ref("parent", ctPrefix, r.parent)
			e.w.key("ip_version")
			e.w.int(ipVersion(r.net))
			e.ref("namespace", ctNamespace, r.namespace)
			e.ref("tenant", ctTenant, r.tenant)
			e.ref("vlan", ctVLAN, r.vlan)
			e.w.key("rir")
			e.w.null()
			e.w.key("date_allocated")
			e.w.null()
			e.field("description", r.description)
			e.locations(r)
			e.tagsAndCF(r)
		},
		display: func(s *store, r *record) string {
			ns := ""
			if n := s.get(ctNamespace, r.namespace); n != nil {
				ns = n.name
			}
			return r.net.String() + ": " + ns
		},
		less: func(s *store, a, b *record) bool {
			if a.namespace != b.namespace {
				return nsName(s, a.namespace) < nsName(s, b.namespace)
			}
			if va, vb := ipVersion(a.net), ipVersion(b.net); va != vb {
				return va < vb
			}
			if c := a.net.Addr().Compare(b.net.Addr()); c != 0 {
				return c < 0
			}
			return a.net.Bits() < b.net.Bits()
		},
		filters: common(map[string]filterFunc{
			"prefix":     fPrefix(func(r *record) netip.Prefix { return r.net }),
			"namespace":  fRef(ctNamespace, func(r *record) string { return r.namespace }),
			"status":     fRef(ctStatus, func(r *record) string { return r.status }),
			"role":       fRef(ctRole, func(r *record) string { return r.role }),
			"tenant":     fRef(ctTenant, func(r *record) string { return r.tenant }),
			"vlan_id":    fPK(func(r *record) string { return r.vlan }),
			"parent":     fParent(),
			"type":       fExact(func(r *record) string { return r.typ }),
			"ip_version": fInt(func(r *record) int64 { return ipVersion(r.net) }),
			"location":   fTree(func(r *record) []string { return r.locations }),
			"locations":  fTree(func(r *record) []string { return r.locations }),
			"tags":       fTags(),
		}),
	}
}

func prefixLocationKind() *kindDef {
	return &kindDef{
		ct: ctPrefixLoc, path: "ipam/prefix-location-assignments", model: "PrefixLocationAssignment", label: "Prefix location assignment",
		decode: func(d *decoder, r *record) {
			d.ref("prefix", ctPrefix, &r.prefix, true, false, "")
			d.ref("location", ctLocation, &r.location, true, false, "")
		},
		check: func(s *store, r, old *record) errorDict {
			e := errorDict{}
			for _, a := range s.assignments[r.prefix] {
				if a.location == r.location && a.id != r.id {
					e.add("non_field_errors", "The fields prefix, location must make a unique set.")
				}
			}
			return e
		},
		encode: func(e *encoder, r *record) {
			e.ref("prefix", ctPrefix, r.prefix)
			e.ref("location", ctLocation, r.location)
		},
		display: func(s *store, r *record) string {
			p, l := s.get(ctPrefix, r.prefix), s.get(ctLocation, r.location)
			if p == nil || l == nil {
				return r.id
			}
			return p.net.String() + ": " + l.name
		},
		less: func(s *store, a, b *record) bool {
			if a.prefix != b.prefix {
				return a.prefix < b.prefix
			}
			return a.location < b.location
		},
		filters: common(map[string]filterFunc{
			"prefix":   fRef(ctPrefix, func(r *record) string { return r.prefix }),
			"location": fTree(func(r *record) []string { return []string{r.location} }),
		}),
	}
}

func nsName(s *store, id string) string {
	if n := s.get(ctNamespace, id); n != nil {
		return n.name
	}
	return ""
}

func ipVersion(p netip.Prefix) int64 {
	if p.Addr().Is4() {
		return 4
	}
	return 6
}

// lastAddr is what Nautobot stores as a prefix's broadcast: its last
// address.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// prefixLocationType is Nautobot's message when the location's type does
// not allow prefixes, or "".
func prefixLocationType(s *store, location string) string {
	l := s.get(ctLocation, location)
	if l == nil {
		return ""
	}
	lt := s.get(ctLocationType, l.locationType)
	if lt == nil || slices.Contains(lt.contentTypes, ctPrefix) {
		return ""
	}
	return fmt.Sprintf("Prefixes may not associate to Locations of types ['%s'].", lt.name)
}
