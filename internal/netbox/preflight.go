package netbox

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"

	"github.com/ipsync/ipsync/internal/ownership"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sot"
)

// Preflight checks, before the first write, that the marker exists where
// it will be written: without it an object would be written that no
// owner can find again. It reads the marker tag as it is now. The
// lookups the writes refer to by id are those the plan's read learned,
// which the change log keeps up to date between whole reads.
func (a *applier) Preflight(ctx context.Context, writes []*plan.Change) error {
	marked, fields := sot.Marked(writes, objectType, a.c.cfg.VNIField, "ipam.prefix")
	intents := map[string]*intent{} // tag name -> the intent of an owner with creates that may be racy
	for _, ch := range writes {
		if ch.Action == plan.Create && mayBeRacy(ch.Key.Kind) {
			in := a.intents.of(a, ch.Desired.Meta().Owner, ch.Key.Kind)
			intents[in.l.TagName()] = in
		}
	}
	if len(marked) == 0 {
		return nil
	}
	// The intents of the owners' racy creates are read with the marker:
	// one that is not there is taken without another read.
	names := append([]string{a.c.cfg.Tag}, slices.Sorted(maps.Keys(intents))...)
	tags, err := sweep[named](ctx, a.c, pathTags, url.Values{"name": names, "fields": {"id,name,slug,object_types"}}, a.t)
	if err != nil {
		return fmt.Errorf("apply: read the marker tag: %w", err)
	}
	for _, in := range intents {
		in.free = true
	}
	found := ownership.Found{Fields: map[string][]string{}}
	for _, t := range tags {
		if in, ok := intents[t.Name]; ok {
			in.free = false
			continue
		}
		if t.Name == a.c.cfg.Tag {
			a.r.k.learnTag(t)
			found.Tag = true
			found.TagTypes = t.ObjectTypes
			if len(found.TagTypes) == 0 {
				found.TagTypes = marked // a NetBox tag without object types may be used on any
			}
		}
	}
	defs, err := sweep[wireCustomField](ctx, a.c, pathCustomFields,
		url.Values{"name": {a.c.cfg.OwnerField, a.c.cfg.VNIField}, "fields": {"id,name,type,filter_logic,object_types"}}, a.t)
	if err != nil {
		return fmt.Errorf("apply: read custom fields: %w", err)
	}
	found.FilterLogic = map[string]string{}
	for _, d := range defs {
		found.Fields[d.Name] = d.ObjectTypes
		if d.FilterLogic != nil {
			found.FilterLogic[d.Name] = d.FilterLogic.Value
		}
	}
	m := ownership.Marker{Tag: a.c.cfg.Tag, OwnerField: a.c.cfg.OwnerField}
	if err := m.Check("netbox", found, marked, fields); err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	return nil
}

// objectType is the object type of kind k's objects.
func objectType(k resource.Kind) (string, bool) {
	ep, ok := endpointOf(k)
	return ep.ot, ok
}
