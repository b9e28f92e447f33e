package emulator

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

func namespaceKind() *kindDef {
	return &kindDef{
		ct: ctNamespace, path: "ipam/namespaces", model: "Namespace", label: "Namespace",
		uniqueField: "name", uniqueMsg: "namespace with this name already exists.",
		decode: func(d *decoder, r *record) {
			d.str("name", &r.name, true, false)
			d.str("description", &r.description, false, true)
			d.ref("location", ctLocation, &r.location, false, true, "")
			// Namespaces have a tenant from Nautobot 3.0 on.
			if d.s.version.atLeast(3, 0) {
				d.ref("tenant", ctTenant, &r.tenant, false, true, "")
			}
			d.refList("tags", ctTag, &r.tags, ctNamespace)
			d.customFields(&r.cf)
		},
		encode: func(e *encoder, r *record) {
			e.field("name", r.name)
			e.field("description", r.description)
			e.ref("location", ctLocation, r.location)
			if e.s.version.atLeast(3, 0) {
				e.ref("tenant", ctTenant, r.tenant)
			}
			e.tagsAndCF(r)
		},
		display: displayName,
		less:    byName,
		filters: common(map[string]filterFunc{
			"name":     fExact(func(r *record) string { return r.name }),
			"location": fPK(func(r *record) string { return r.location }),
			"tenant":   fOnLine3(fRef(ctTenant, func(r *record) string { return r.tenant })),
			"tags":     fTags(),
		}),
	}
}

func vlanGroupKind() *kindDef {
	return &kindDef{
		ct: ctVLANGroup, path: "ipam/vlan-groups", model: "VLANGroup", label: "VLAN group",
		uniqueField: "name", uniqueMsg: "VLAN group with this name already exists.",
		decode: func(d *decoder, r *record) {
			d.str("name", &r.name, true, false)
			d.str("description", &r.description, false, true)
			d.ref("location", ctLocation, &r.location, false, true, "")
			if d.create && !d.has("range") {
				r.vrange = "1-4094"
			}
			d.str("range", &r.vrange, false, false)
			r.rangeSent = ""
			if d.has("range") {
				r.rangeSent = r.vrange
			}
			d.refList("tags", ctTag, &r.tags, ctVLANGroup)
			d.customFields(&r.cf)
		},
		check: func(s *store, r, old *record) errorDict {
			iv, msgs, f := checkRange(r.vrange)
			if f != nil {
				return f
			}
			e := errorDict{}
			for _, m := range msgs {
				e.add("range", m)
			}
			if len(msgs) == 0 {
				r.vrange = formatRange(iv)
			}
			if l := s.get(ctLocation, r.location); l != nil {
				if lt := s.get(ctLocationType, l.locationType); lt == nil || !slices.Contains(lt.contentTypes, ctVLANGroup) {
					name := ""
					if lt != nil {
						name = lt.name
					}
					e.add("location", fmt.Sprintf("VLAN groups may not associate to locations of type %q.", name))
				}
			}
			if old != nil {
				var out []string
				for _, v := range s.sorted(s.tables[ctVLAN]) {
					if v.group == r.id && !inRanges(iv, v.vid) {
						out = append(out, strconv.Itoa(v.vid))
					}
				}
				if len(out) > 0 {
					e.add("range", fmt.Sprintf("VLAN group range may not be re-sized due to existing VLANs (IDs: %s).", strings.Join(out, ",")))
				}
			}
			return e
		},
		encode: func(e *encoder, r *record) {
			e.field("name", r.name)
			e.field("description", r.description)
			e.ref("location", ctLocation, r.location)
			// The answer to a write has the range as sent; Nautobot
			// normalizes it only on its way into the database.
			if e.write && r.rangeSent != "" {
				e.field("range", r.rangeSent)
			} else {
				e.field("range", r.vrange)
			}
			e.tagsAndCF(r)
		},
		display: displayName,
		less:    byName,
		filters: common(map[string]filterFunc{
			"name":     fExact(func(r *record) string { return r.name }),
			"location": fTree(func(r *record) []string { return []string{r.location} }),
			"tags":     fTags(),
		}),
	}
}

func vlanKind() *kindDef {
	return &kindDef{
		ct: ctVLAN, path: "ipam/vlans", model: "VLAN", label: "VLAN",
		decode: func(d *decoder, r *record) {
			vid := int64(r.vid)
			d.integer("vid", &vid, true, 1, 4094)
			r.vid = int(vid)
			d.str("name", &r.name, true, false)
			d.str("description", &r.description, false, true)
			d.ref("vlan_group", ctVLANGroup, &r.group, false, true, "")
			r.modelUnique = d.partial && !(d.has("vlan_group") && (d.has("vid") || d.has("name")))
			d.ref("status", ctStatus, &r.status, true, false, ctVLAN)
			d.ref("role", ctRole, &r.role, false, true, ctVLAN)
			d.ref("tenant", ctTenant, &r.tenant, false, true, "")
			if d.has("location") {
				r.setLocation = true
				d.ref("location", ctLocation, &r.newLocation, false, true, "")
			}
			d.refList("tags", ctTag, &r.tags, ctVLAN)
			d.customFields(&r.cf)
		},
		check: func(s *store, r, old *record) errorDict {
			e := errorDict{}
			if r.group == "" {
				return e
			}
			// VLANSerializer checks these before the model is cleaned, so
			// they are reported alone, as non-field errors; a PATCH that
			// leaves the group out is caught by the model's check instead.
			if o := s.vlans[vlanKey{group: r.group, vid: r.vid}]; o != nil && o.id != r.id {
				if r.modelUnique {
					e.add("__all__", "VLAN with this Vlan group and ID already exists.")
				} else {
					e.add("non_field_errors", "The fields vlan_group, vid must make a unique set.")
				}
				return e
			}
			if o := s.vlans[vlanKey{group: r.group, name: r.name}]; o != nil && o.id != r.id {
				if r.modelUnique {
					e.add("__all__", "VLAN with this Vlan group and Name already exists.")
				} else {
					e.add("non_field_errors", "The fields vlan_group, name must make a unique set.")
				}
				return e
			}
			g := s.get(ctVLANGroup, r.group)
			if iv, _ := expandRange(g.vrange); !inRanges(iv, r.vid) {
				e.add("vid", fmt.Sprintf("VLAN ID is not contained in VLAN Group range (%s)", g.vrange))
			}
			return e
		},
		after: func(s *store, r, _ *record) errorDict {
			if r.setLocation {
				r.setLocation = false
				r.locations = nil
				if r.newLocation != "" {
					r.locations = []string{r.newLocation}
				}
			}
			return nil
		},
		encode: func(e *encoder, r *record) {
			e.w.key("vid")
			e.w.int(int64(r.vid))
			e.field("name", r.name)
			e.field("description", r.description)
			e.ref("vlan_group", ctVLANGroup, r.group)
			e.ref("status", ctStatus, r.status)
			e.ref("role", ctRole, r.role)
			e.ref("tenant", ctTenant, r.tenant)
			e.locations(r)
			e.tagsAndCF(r)
		},
		display: func(_ *store, r *record) string { return fmt.Sprintf("%s (%d)", r.name, r.vid) },
		less: func(s *store, a, b *record) bool {
			if a.group != b.group {
				return groupName(s, a) < groupName(s, b)
			}
			return a.vid < b.vid
		},
		filters: common(map[string]filterFunc{
			"name":       fExact(func(r *record) string { return r.name }),
			"vid":        fInt(func(r *record) int64 { return int64(r.vid) }),
			"vlan_group": fRef(ctVLANGroup, func(r *record) string { return r.group }),
			"status":     fRef(ctStatus, func(r *record) string { return r.status }),
			"role":       fRef(ctRole, func(r *record) string { return r.role }),
			"tenant":     fRef(ctTenant, func(r *record) string { return r.tenant }),
			"location":   fTree(func(r *record) []string { return r.locations }),
			"locations":  fTree(func(r *record) []string { return r.locations }),
			"tags":       fTags(),
		}),
	}
}

// groupName orders VLANs without a group after those with one, as
// PostgreSQL sorts NULLs last.
func groupName(s *store, r *record) string {
	if g := s.get(ctVLANGroup, r.group); g != nil {
		return g.name
	}
	return "\xff"
}

// locations writes a prefix's or VLAN's locations: a list since API 2.2
// (left out when many-to-many fields are excluded), one location before.
func (e *encoder) locations(r *record) {
	if e.legacy {
		first := ""
		if len(r.locations) > 0 {
			first = r.locations[0]
		}
		e.ref("location", ctLocation, first)
		return
	}
	if !e.excludeM2M {
		e.refs("locations", ctLocation, r.locations)
	}
}
