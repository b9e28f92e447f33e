package netbox

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sot"
)

// Request bodies: related objects are written by id, from the lookups
// and from the ids of ipsync's own objects learnt by the read the writes
// go through and by its earlier writes; a name not known yet is written as
// {"name": ...}, which NetBox resolves itself or refuses with a message.

func (a *applier) targetRef(k resource.Kind, name string) any {
	l := a.r.k.lookups()
	return sot.Ref(name, func(name string) (int, bool) {
		if l == nil {
			return 0, false
		}
		id, ok := l.refs[k].byName[name]
		return id, ok
	})
}

func (a *applier) ownRef(k resource.Kind, name string) any {
	if k == resource.KindNamespace && name == GlobalNamespace {
		return nil
	}
	return sot.Ref(name, func(name string) (int, bool) { return a.r.k.own.ID(resource.Key{Kind: k, Name: name}) })
}

// tags are the object's own tags plus the marker tag, by name.
func (a *applier) tags(own []string) []any {
	return sot.Tags(a.c.cfg.Tag, own, func(t string) any { return map[string]any{"name": t} })
}

// scope sets a VLAN group's or prefix's scope to the location named.
func (a *applier) scope(b map[string]any, location string) {
	if location == "" {
		b["scope_type"], b["scope_id"] = nil, nil
		return
	}
	b["scope_type"] = "dcim." + a.c.cfg.LocationScope
	b["scope_id"] = a.targetRef(resource.RefLocation, location)
}

// choiceValue is the value of the choice labelled name for field.
func (a *applier) choiceValue(cs []choice, name string) any {
	if name == "" {
		return nil
	}
	if v, ok := value(cs, name); ok {
		return v
	}
	return strings.ToLower(name) // refused by NetBox with its list of choices
}

var slugUnsafe = regexp.MustCompile(`[^a-z0-9_-]+`)

// Slug is the slug ipsync gives a VLAN group named name: NetBox requires
// one, unique within the group's scope like the name.
func Slug(name string) string {
	s := strings.Trim(slugUnsafe.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if len(s) > 100 {
		s = s[:100]
	}
	return s
}

// body is the full writable representation of o, as for a create.
func (a *applier) body(o resource.Object) (map[string]any, error) {
	if err := Supports(o); err != nil {
		return nil, err
	}
	l := a.r.k.lookups()
	if l == nil {
		l = &lookups{statuses: map[string][]choice{}}
	}
	b := map[string]any{"custom_fields": sot.MarkerFields(o, a.c.cfg.OwnerField, a.c.cfg.VNIField)}
	switch x := o.(type) {
	case *resource.Namespace:
		b["name"], b["description"] = x.Name, x.Description
		b["tags"] = a.tags(nil)
	case *resource.VLANGroup:
		b["name"], b["slug"], b["description"] = x.Name, Slug(x.Name), x.Description
		a.scope(b, x.Location)
		ranges := [][2]int{{resource.MinVID, resource.MaxVID}}
		if len(x.Range) > 0 {
			ranges = ranges[:0]
			for _, r := range x.Range {
				ranges = append(ranges, [2]int{int(r.Lo), int(r.Hi)})
			}
		}
		b["vid_ranges"] = ranges
		b["tags"] = a.tags(x.Tags)
	case *resource.VLAN:
		b["group"] = a.ownRef(resource.KindVLANGroup, x.Group)
		b["vid"], b["name"], b["description"] = x.VID, x.Name, x.Description
		if x.Status != "" {
			b["status"] = a.choiceValue(l.statuses["ipam.vlan"], x.Status)
		}
		b["role"] = a.targetRef(resource.RefRole, x.Role)
		b["tenant"] = a.targetRef(resource.RefTenant, x.Tenant)
		b["tags"] = a.tags(x.Tags)
	case *resource.Prefix:
		b["prefix"] = x.Prefix.String()
		b["vrf"] = a.ownRef(resource.KindNamespace, x.Namespace)
		a.scope(b, first(x.Locations))
		b["vlan"] = a.ownRef(resource.KindVLAN, x.VLAN)
		switch {
		case x.Type == resource.PrefixContainer:
			b["status"] = statusContainer
		case x.Status != "":
			b["status"] = a.choiceValue(l.statuses["ipam.prefix"], x.Status)
		}
		b["is_pool"] = x.Type == resource.PrefixPool
		b["role"] = a.targetRef(resource.RefRole, x.Role)
		b["tenant"] = a.targetRef(resource.RefTenant, x.Tenant)
		b["description"] = x.Description
		b["tags"] = a.tags(x.Tags)
	case *resource.IPAddress:
		b["address"] = x.Address.String()
		b["vrf"] = a.ownRef(resource.KindNamespace, x.Namespace)
		if x.Status != "" {
			b["status"] = a.choiceValue(l.statuses["ipam.ipaddress"], x.Status)
		}
		b["role"] = a.choiceValue(l.ipRoles, x.Role)
		b["tenant"] = a.targetRef(resource.RefTenant, x.Tenant)
		b["dns_name"], b["description"] = x.DNSName, x.Description
		b["tags"] = a.tags(x.Tags)
	case *resource.ASN:
		b["asn"], b["description"] = x.ASN, x.Description
		rir := x.RIR
		if rir == "" {
			rir = a.c.cfg.RIR
		}
		b["rir"] = a.targetRef(refRIR, rir)
		b["tenant"] = a.targetRef(resource.RefTenant, x.Tenant)
		b["tags"] = a.tags(x.Tags)
	}
	return b, nil
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return resource.NormalizeSet(append([]string(nil), s...))[0]
}

// wireFields are the body keys a changed resource field is written in.
func wireFields(k resource.Kind, field string) []string {
	switch {
	case field == "vni" || field == "tags":
		return nil // custom_fields and tags are always sent
	case field == "mask_length":
		return []string{"address"}
	case field == "range":
		return []string{"vid_ranges"}
	case field == "location" || field == "locations":
		return []string{"scope_type", "scope_id"}
	case field == "type":
		return []string{"status", "is_pool"}
	case field == "status" && k == resource.KindASN:
		return nil // NetBox ASNs have no status; Check allows only Active
	case field == "status" && k == resource.KindPrefix:
		return []string{"status", "is_pool"}
	}
	return []string{field}
}

// patchBody is an update's or adopt's body: the changed fields, plus the
// marker (tags and owner) in every case.
func (a *applier) patchBody(ch *plan.Change, id int) (map[string]any, error) {
	full, err := a.body(ch.Desired)
	if err != nil {
		return nil, err
	}
	return sot.Patch(ch, id, full, func(f string) ([]string, error) { return wireFields(ch.Key.Kind, f), nil },
		func(f, _ string) (any, error) {
			return nil, fmt.Errorf("netbox has no place for the %s of a %s", f, ch.Key.Kind)
		})
}
