package nautobot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sot"
)

// Names returns the names of the objects Nautobot owns that ipsync
// objects refer to: locations, statuses, roles, tenants and tags, for
// checking a plan's references before anything is written. Locations are
// named as locationNames says; a name several locations share is
// included, so that Check, not the reference check, reports it as
// ambiguous. Whether a status, role or tag may be used on an object's
// kind is Check's too.
func (c *Client) Names(ctx context.Context) (map[resource.Kind]map[string]bool, error) {
	return sot.Names[string, *reading](ctx, c)
}

// names are the names of l's kinds, as Names returns them.
func (l *lookups) names() map[resource.Kind]map[string]bool {
	out := map[resource.Kind]map[string]bool{}
	for _, k := range refKinds() {
		m := map[string]bool{}
		for name := range l.byName[k.kind] {
			m[name] = true
		}
		if k.kind == resource.RefLocation {
			for name := range l.shared {
				m[name] = true
			}
		}
		out[k.kind] = m
	}
	tags := map[string]bool{}
	for name := range l.byName[refTag] {
		tags[name] = true
	}
	out[resource.RefTag] = tags
	return out
}

// FieldError is a problem with one field of a desired object.
type FieldError = sot.FieldError

// locationTypeChecked are the kinds whose location Nautobot checks
// against the location type's content types: a VLAN group's in its
// clean() (a 400), a prefix's in a signal on its locations (a
// ValidationError in save(): a 500 for the whole request). A namespace's
// location is not checked: Nautobot stores it whatever its type allows.
func locationTypeChecked(k resource.Kind) bool {
	return k == resource.KindPrefix || k == resource.KindVLANGroup
}

// check reports the references of o that Nautobot will refuse, from the
// lookups of the read: a status, role or tag that may not be used on
// o's content type, a location whose type may not hold o, and a location
// name several locations share. Names Nautobot does not have at all are
// left to the reference check.
func (c *Client) check(read *reading, o resource.Object) error {
	l := read.m.l
	ep, ok := endpointOf(o.Kind())
	if l == nil || !ok {
		return nil
	}
	var errs []error
	for _, r := range o.References() {
		switch r.Kind {
		case resource.RefStatus, resource.RefRole, resource.RefTag:
			n, ok := l.byName[r.Kind][r.Name]
			if ok && !slices.Contains(n.ContentTypes, ep.ct) {
				plural := map[resource.Kind]string{resource.RefStatus: "statuses", resource.RefRole: "roles", resource.RefTag: "tags"}[r.Kind]
				allowed := "none"
				if a := l.allowed(r.Kind, ep.ct); len(a) > 0 {
					allowed = strings.Join(a, ", ")
				}
				errs = append(errs, sot.FieldProblem(r.Field, fmt.Sprintf("%s %q may not be used on %s in nautobot (%s allowed there: %s)",
					r.Kind, r.Name, ep.ct, plural, allowed)))
			}
		case resource.RefLocation:
			if paths, ok := l.shared[r.Name]; ok {
				errs = append(errs, sot.FieldProblem(r.Field, fmt.Sprintf("location %q is ambiguous: location names are unique only under one parent, and %d locations are named so; write the path of the one meant: %s",
					r.Name, len(paths), strings.Join(paths, ", "))))
				continue
			}
			n, ok := l.byName[r.Kind][r.Name]
			if !ok || !locationTypeChecked(o.Kind()) {
				continue
			}
			if lt, ok := l.refs[refLocationType][refID(n.LocationType)]; ok && !slices.Contains(lt.ContentTypes, ep.ct) {
				errs = append(errs, sot.FieldProblem(r.Field, fmt.Sprintf("location %q is a %q, a location type that may not hold %s in nautobot; add %s to its content types or pick another location",
					r.Name, lt.Name, ep.ct, ep.ct)))
			}
		}
	}
	return errors.Join(errs...)
}

// allowed names the objects of kind k that may be used on content type
// ct, sorted.
func (l *lookups) allowed(k resource.Kind, ct string) []string {
	var out []string
	for name, n := range l.byName[k] {
		if slices.Contains(n.ContentTypes, ct) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
