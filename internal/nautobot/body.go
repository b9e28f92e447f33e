package nautobot

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sot"
)

// Request bodies: related objects are written by id when the read the
// writes go through knows it (from the read itself or an earlier create
// of a write through it), else by natural key ({"name": ...}), which
// Nautobot resolves itself.

func (a *applier) ownRef(k resource.Kind, name string) any {
	return sot.Ref(name, func(name string) (any, bool) {
		if id, ok := a.r.k.own.ID(resource.Key{Kind: k, Name: name}); ok {
			return id, true
		}
		// A VLAN not known yet is named by its group and VID: its name
		// is not unique.
		if i := strings.LastIndexByte(name, '/'); k == resource.KindVLAN && i >= 0 {
			if vid, err := strconv.Atoi(name[i+1:]); err == nil {
				return map[string]any{"vlan_group": map[string]any{"name": name[:i]}, "vid": vid}, true
			}
		}
		return nil, false
	})
}

func (a *applier) targetRef(k resource.Kind, name string) any {
	return sot.Ref(name, func(name string) (string, bool) { return a.r.k.refID(k, name) })
}

// tags are the object's own tags plus the marker tag.
func (a *applier) tags(own []string) []any {
	return sot.Tags(a.c.cfg.Tag, own, func(t string) any { return a.targetRef(refTag, t) })
}

// putStatus sets status unless empty: Nautobot then answers that the
// field is required, which names the problem better than a null.
func (a *applier) putStatus(b map[string]any, status string) {
	if status != "" {
		b["status"] = a.targetRef(resource.RefStatus, status)
	}
}

// Supports reports a desired object Nautobot has no place for, so a plan
// can be refused before its first write rather than fail halfway.
func Supports(o resource.Object) error {
	if x, ok := o.(*resource.ASN); ok && (x.RIR != "" || x.Tenant != "") {
		return errors.New("the nautobot-bgp-models autonomous system has no rir or tenant field; leave them empty")
	}
	return sot.Holds("nautobot", o.Kind())
}

// body is the full writable representation of o, as for a create.
func (a *applier) body(o resource.Object) (map[string]any, error) {
	b := map[string]any{"custom_fields": sot.MarkerFields(o, a.c.cfg.OwnerField, a.c.cfg.VNIField)}
	switch x := o.(type) {
	case *resource.Namespace:
		b["name"], b["description"] = x.Name, x.Description
		b["location"] = a.targetRef(resource.RefLocation, x.Location)
		b["tags"] = a.tags(nil)
	case *resource.VLANGroup:
		b["name"], b["description"] = x.Name, x.Description
		b["location"] = a.targetRef(resource.RefLocation, x.Location)
		b["range"] = fullRange
		if len(x.Range) > 0 {
			b["range"] = x.Range.String()
		}
		b["tags"] = a.tags(x.Tags)
	case *resource.VLAN:
		b["vlan_group"] = a.ownRef(resource.KindVLANGroup, x.Group)
		b["vid"], b["name"], b["description"] = x.VID, x.Name, x.Description
		a.putStatus(b, x.Status)
		b["role"] = a.targetRef(resource.RefRole, x.Role)
		b["tenant"] = a.targetRef(resource.RefTenant, x.Tenant)
		b["tags"] = a.tags(x.Tags)
	case *resource.Prefix:
		b["prefix"] = x.Prefix.String()
		b["namespace"] = a.ownRef(resource.KindNamespace, x.Namespace)
		if x.Type != "" {
			b["type"] = x.Type
		}
		a.putStatus(b, x.Status)
		b["role"] = a.targetRef(resource.RefRole, x.Role)
		b["tenant"] = a.targetRef(resource.RefTenant, x.Tenant)
		b["vlan"] = a.ownRef(resource.KindVLAN, x.VLAN)
		b["description"] = x.Description
		if locs := resource.NormalizeSet(append([]string(nil), x.Locations...)); len(locs) > 0 {
			b["location"] = a.targetRef(resource.RefLocation, locs[0])
		}
		b["tags"] = a.tags(x.Tags)
	case *resource.IPAddress:
		b["address"] = x.Address.String()
		b["namespace"] = a.ownRef(resource.KindNamespace, x.Namespace)
		a.putStatus(b, x.Status)
		b["role"] = a.targetRef(resource.RefRole, x.Role)
		b["tenant"] = a.targetRef(resource.RefTenant, x.Tenant)
		b["dns_name"], b["description"] = x.DNSName, x.Description
		b["tags"] = a.tags(x.Tags)
	case *resource.ASN:
		if err := Supports(x); err != nil {
			return nil, err
		}
		b["asn"], b["description"] = x.ASN, x.Description
		a.putStatus(b, x.Status)
		b["tags"] = a.tags(x.Tags)
	default:
		return nil, fmt.Errorf("nautobot holds no %s objects", o.Kind())
	}
	return b, nil
}

// wireFields are the body keys a changed resource field is written in.
func wireFields(k resource.Kind, field string) ([]string, error) {
	switch field {
	case "vni", "tags":
		return nil, nil // custom_fields and tags are always sent
	case "locations":
		return nil, nil // written through location assignments
	case "mask_length":
		return []string{"address"}, nil
	case "rir":
		return nil, errors.New("the nautobot-bgp-models autonomous system has no rir field")
	case "tenant":
		if k == resource.KindASN {
			return nil, errors.New("the nautobot-bgp-models autonomous system has no tenant field")
		}
	}
	return []string{field}, nil
}

// patchBody is an update's or adopt's body: the changed fields, plus the
// marker (tags and owner) in every case.
func (a *applier) patchBody(ch *plan.Change, id string) (map[string]any, error) {
	full, err := a.body(ch.Desired)
	if err != nil {
		return nil, err
	}
	b, err := sot.Patch(ch, id, full, func(f string) ([]string, error) { return wireFields(ch.Key.Kind, f) },
		func(string, string) (any, error) { return nil, nil })
	if ch.Key.Kind == resource.KindPrefix {
		delete(b, "location") // written through location assignments
	}
	return b, err
}
