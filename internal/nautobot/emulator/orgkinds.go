package emulator

import (
	"fmt"
	"strconv"
)

// The kinds Nautobot owns and ipsync only refers to: statuses, roles,
// tags, tenants, location types and locations.

func byName(_ *store, a, b *record) bool { return a.name < b.name }

func displayName(_ *store, r *record) string { return r.name }

// coloredKind is a status, role or tag: a name, a color and the content
// types it may be used with.
func coloredKind(ct, path, model, verbose string, weighted bool) *kindDef {
	choices := (*store).knownType
	if ct == ctStatus {
		choices = (*store).hasStatus
	}
	return &kindDef{
		ct: ct, path: path, model: model, label: capFirst(verbose),
		uniqueField: "name", uniqueMsg: verbose + " with this name already exists.",
		decode: func(d *decoder, r *record) {
			d.str("name", &r.name, true, false)
			d.str("color", &r.color, false, true)
			d.str("description", &r.description, false, true)
			d.contentTypes("content_types", &r.contentTypes, ct == ctTag || ct == ctStatus || ct == ctRole, d.s.knownType)
			if weighted {
				var w int64 = int64(r.weight)
				d.integer("weight", &w, false, 0, 32767)
				r.weight = int(w)
			}
			if r.color == "" {
				r.color = "9e9e9e"
			}
		},
		encode: func(e *encoder, r *record) {
			e.field("name", r.name)
			e.field("color", r.color)
			if weighted {
				e.w.key("weight")
				e.w.int(int64(r.weight))
			}
			e.field("description", r.description)
			e.w.key("content_types")
			e.w.open('[')
			for _, c := range r.contentTypes {
				e.w.str(c)
			}
			e.w.close(']')
		},
		display: displayName,
		less:    byName,
		filters: common(map[string]filterFunc{
			"name":          fExact(func(r *record) string { return r.name }),
			"content_types": fContentTypes(choices),
		}),
	}
}

func statusKind() *kindDef {
	return coloredKind(ctStatus, "extras/statuses", "Status", "status", false)
}
func roleKind() *kindDef { return coloredKind(ctRole, "extras/roles", "Role", "role", true) }
func tagKind() *kindDef  { return coloredKind(ctTag, "extras/tags", "Tag", "tag", false) }

func tenantKind() *kindDef {
	return &kindDef{
		ct: ctTenant, path: "tenancy/tenants", model: "Tenant", label: "Tenant",
		uniqueField: "name", uniqueMsg: "tenant with this name already exists.",
		decode: func(d *decoder, r *record) {
			d.str("name", &r.name, true, false)
			d.str("description", &r.description, false, true)
			d.refList("tags", ctTag, &r.tags, ctTenant)
			d.customFields(&r.cf)
		},
		encode: func(e *encoder, r *record) {
			e.field("name", r.name)
			e.field("description", r.description)
			e.w.key("comments")
			e.w.str("")
			e.w.key("tenant_group")
			e.w.null()
			e.tagsAndCF(r)
		},
		display: displayName,
		less:    byName,
		filters: common(map[string]filterFunc{
			"name": fExact(func(r *record) string { return r.name }),
			"tags": fTags(),
		}),
	}
}

func locationTypeKind() *kindDef {
	return &kindDef{
		ct: ctLocationType, path: "dcim/location-types", model: "LocationType", label: "Location type",
		uniqueField: "name", uniqueMsg: "location type with this name already exists.",
		decode: func(d *decoder, r *record) {
			d.str("name", &r.name, true, false)
			d.str("description", &r.description, false, true)
			d.ref("parent", ctLocationType, &r.parent, false, true, "")
			d.boolean("nestable", &r.nestable)
			d.contentTypes("content_types", &r.contentTypes, false, d.s.knownType)
		},
		encode: func(e *encoder, r *record) {
			e.field("name", r.name)
			e.field("description", r.description)
			e.ref("parent", ctLocationType, r.parent)
			e.w.key("nestable")
			e.w.boolean(r.nestable)
			e.w.key("content_types")
			e.w.open('[')
			for _, c := range r.contentTypes {
				e.w.str(c)
			}
			e.w.close(']')
		},
		display: displayName,
		less:    byName,
		filters: common(map[string]filterFunc{
			"name":          fExact(func(r *record) string { return r.name }),
			"content_types": fContentTypes((*store).knownType),
		}),
	}
}

func locationKind() *kindDef {
	return &kindDef{
		ct: ctLocation, path: "dcim/locations", model: "Location", label: "Location",
		decode: func(d *decoder, r *record) {
			d.str("name", &r.name, true, false)
			d.str("description", &r.description, false, true)
			d.ref("location_type", ctLocationType, &r.locationType, true, false, "")
			d.ref("status", ctStatus, &r.status, true, false, ctLocation)
			d.ref("parent", ctLocation, &r.parent, false, true, "")
			d.ref("tenant", ctTenant, &r.tenant, false, true, "")
			d.refList("tags", ctTag, &r.tags, ctLocation)
			d.customFields(&r.cf)
		},
		check: func(s *store, r, old *record) errorDict {
			e := errorDict{}
			if other := s.tables[ctLocation].byKey[keyOf(r)]; other != nil && other.id != r.id {
				e.add("non_field_errors", "The fields parent, name must make a unique set.")
			}
			return e
		},
		encode: func(e *encoder, r *record) {
			e.field("name", r.name)
			e.field("description", r.description)
			e.ref("location_type", ctLocationType, r.locationType)
			e.ref("status", ctStatus, r.status)
			e.ref("parent", ctLocation, r.parent)
			e.ref("tenant", ctTenant, r.tenant)
			e.w.key("facility")
			e.w.str("")
			e.w.key("asn")
			e.w.null()
			e.w.key("time_zone")
			e.w.null()
			e.tagsAndCF(r)
		},
		display: displayName,
		less:    byName,
		filters: common(map[string]filterFunc{
			"name":          fExact(func(r *record) string { return r.name }),
			"location_type": fRef(ctLocationType, func(r *record) string { return r.locationType }),
			"parent":        fRef(ctLocation, func(r *record) string { return r.parent }),
			"status":        fRef(ctStatus, func(r *record) string { return r.status }),
			"tenant":        fRef(ctTenant, func(r *record) string { return r.tenant }),
			"tags":          fTags(),
		}),
	}
}

func asnKind() *kindDef {
	return &kindDef{
		ct: ctASN, path: "plugins/bgp/autonomous-systems", model: "AutonomousSystem", label: "Autonomous system", plugin: true,
		uniqueField: "asn", uniqueMsg: "Autonomous system with this ASN already exists.",
		decode: func(d *decoder, r *record) {
			d.integer("asn", &r.asn, true, 1, 4294967295)
			d.str("description", &r.description, false, true)
			d.ref("status", ctStatus, &r.status, false, true, ctASN)
			// The emulator has no circuit providers.
			if v, ok := d.raw["provider"]; ok && v != nil {
				d.errs.add("provider", fmt.Sprintf("Related object not found using the provided attributes: %v", v))
			}
			d.refList("tags", ctTag, &r.tags, ctASN)
			d.customFields(&r.cf)
		},
		encode: func(e *encoder, r *record) {
			e.w.key("asn")
			e.w.int(r.asn)
			e.field("description", r.description)
			e.ref("status", ctStatus, r.status)
			e.w.key("provider")
			e.w.null()
			e.tagsAndCF(r)
		},
		display: func(_ *store, r *record) string { return "AS " + strconv.FormatInt(r.asn, 10) },
		less:    func(_ *store, a, b *record) bool { return a.asn < b.asn },
		filters: common(map[string]filterFunc{
			"asn":    fInt(func(r *record) int64 { return r.asn }),
			"status": fRef(ctStatus, func(r *record) string { return r.status }),
			"tags":   fTags(),
		}),
	}
}

func capFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
