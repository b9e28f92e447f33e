package netbox

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sot"
)

// Names returns the names of what NetBox owns that ipsync objects refer
// to: sites or locations, status and role names, tenants and tags, for
// checking a plan's references before anything is written. Whether a
// status or role may be used on an object's kind is Check's.
func (c *Client) Names(ctx context.Context) (map[resource.Kind]map[string]bool, error) {
	return sot.Names[int](ctx, c)
}

func (l *lookups) names() map[resource.Kind]map[string]bool {
	set := func(n names) map[string]bool {
		m := map[string]bool{}
		for name := range n.byName {
			m[name] = true
		}
		for name := range n.shared {
			m[name] = true
		}
		return m
	}
	out := map[resource.Kind]map[string]bool{
		resource.RefLocation: set(l.refs[resource.RefLocation]),
		resource.RefRole:     set(l.refs[resource.RefRole]),
		resource.RefTenant:   set(l.refs[resource.RefTenant]),
		resource.RefTag:      set(l.refs[resource.RefTag]),
		resource.RefStatus:   {asnStatus: true},
	}
	for _, cs := range l.statuses {
		for _, ch := range cs {
			out[resource.RefStatus][ch.Label] = true
		}
	}
	for _, ch := range l.ipRoles {
		out[resource.RefRole][ch.Label] = true
	}
	return out
}

// FieldError is a problem with one field of a desired object.
type FieldError = sot.FieldError

// Supports reports a desired object NetBox has no place for, so a plan can
// be refused before its first write rather than fail halfway.
func Supports(o resource.Object) error {
	switch x := o.(type) {
	case *resource.SegmentRange:
		return errors.New("netbox holds no segment ranges: they live in each site's Neutron (plan them with --target neutron)")
	case *resource.Namespace:
		if x.Name == GlobalNamespace {
			return sot.FieldProblem("name", "the namespace Global is netbox's global table, which is no VRF and has no fields; leave it out of the spec")
		}
		if x.Location != "" {
			return sot.FieldProblem("location", "a namespace is a VRF in netbox, and a VRF has no location; leave location empty")
		}
	case *resource.Prefix:
		var errs []error
		if len(x.Locations) > 1 {
			errs = append(errs, sot.FieldProblem("locations", fmt.Sprintf("a netbox prefix has one scope, not %d locations (%s); keep one", len(x.Locations), strings.Join(x.Locations, ", "))))
		}
		if x.Type == resource.PrefixContainer && x.Status != "" && x.Status != containerStatus {
			errs = append(errs, sot.FieldProblem("status", fmt.Sprintf("netbox keeps container as a prefix status, so a container has no status of its own; leave status %s, not %q", containerStatus, x.Status)))
		}
		return errors.Join(errs...)
	case *resource.ASN:
		if x.Status != "" && x.Status != asnStatus {
			return sot.FieldProblem("status", fmt.Sprintf("a netbox ASN has no status; leave status %s, not %q", asnStatus, x.Status))
		}
	}
	return sot.Holds("netbox", o.Kind())
}

// check reports the references of o that NetBox will refuse, from the
// lookups of the read: a status or role that is no choice or object for
// o's kind, a tag that may not be used on it, an ambiguous location, an
// RIR NetBox lacks. Names NetBox does not have at all are left to the
// reference check.
func (c *Client) check(read *reading, o resource.Object) error {
	l := read.k.lookups()
	ep, ok := endpointOf(o.Kind())
	if l == nil || !ok {
		return nil
	}
	var errs []error
	for _, r := range o.References() {
		switch r.Kind {
		case resource.RefStatus:
			if o.Kind() == resource.KindASN {
				continue // Supports
			}
			cs := l.statuses[ep.ot]
			if _, ok := value(cs, r.Name); !ok {
				errs = append(errs, sot.FieldProblem(r.Field, fmt.Sprintf("status %q is not a status of %s in netbox (statuses there: %s)", r.Name, ep.ot, labels(cs))))
			}
		case resource.RefRole:
			if o.Kind() == resource.KindIPAddress {
				if _, ok := value(l.ipRoles, r.Name); !ok {
					errs = append(errs, sot.FieldProblem(r.Field, fmt.Sprintf("an ip address role in netbox is one of %s, not %q", labels(l.ipRoles), r.Name)))
				}
			} else if _, ok := l.refs[resource.RefRole].byName[r.Name]; !ok && !l.refs[resource.RefRole].shared[r.Name] {
				errs = append(errs, sot.FieldProblem(r.Field, fmt.Sprintf("role %q does not exist in netbox (ipam roles)", r.Name)))
			}
		case resource.RefTag:
			id, ok := l.refs[resource.RefTag].byName[r.Name]
			if types := l.refs[resource.RefTag].byID[id].ObjectTypes; ok && len(types) > 0 && !slices.Contains(types, ep.ot) {
				errs = append(errs, sot.FieldProblem(r.Field, fmt.Sprintf("tag %q may not be used on %s in netbox (its object types: %s)", r.Name, ep.ot, strings.Join(types, ", "))))
			}
		case resource.RefLocation:
			if l.refs[resource.RefLocation].shared[r.Name] {
				errs = append(errs, sot.FieldProblem(r.Field, fmt.Sprintf("%s %q is ambiguous: several netbox %ss have that name; rename one", c.cfg.LocationScope, r.Name, c.cfg.LocationScope)))
			}
		}
	}
	if x, ok := o.(*resource.ASN); ok {
		rir := x.RIR
		if rir == "" {
			rir = c.cfg.RIR
		}
		if _, ok := l.refs[refRIR].byName[rir]; !ok {
			errs = append(errs, sot.FieldProblem("rir", fmt.Sprintf("rir %q does not exist in netbox; create it or name another", rir)))
		}
	}
	return errors.Join(errs...)
}

func labels(cs []choice) string {
	if len(cs) == 0 {
		return "none"
	}
	out := make([]string, len(cs))
	for i, ch := range cs {
		out[i] = ch.Label
	}
	return strings.Join(out, ", ")
}
