package netbox

import (
	"context"
	"fmt"
	"net/url"

	"github.com/ipsync/ipsync/internal/ownership"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// Preflight reads the lookups the writes refer to by id, and checks,
// before the first write, that the marker exists where it will be
// written: without it an object would be written that no owner can find
// again.
func (a *applier) Preflight(ctx context.Context, writes []*plan.Change) error {
	l, err := a.c.fetchLookups(ctx, a.t)
	if err != nil {
		return fmt.Errorf("apply: read lookups: %w", err)
	}
	seen := map[string]bool{}
	var marked []string // object types that get the marker
	fields := map[string][]string{}
	for _, ch := range writes {
		if ch.Action == plan.Delete {
			continue
		}
		if ep, ok := endpointOf(ch.Key.Kind); ok && !seen[ep.ot] {
			seen[ep.ot] = true
			marked = append(marked, ep.ot)
		}
		if p, ok := ch.Desired.(*resource.Prefix); ok && p.VNI != 0 {
			fields[a.c.cfg.VNIField] = []string{"ipam.prefix"}
		}
	}
	if len(marked) == 0 {
		return nil
	}
	found := ownership.Found{Fields: map[string][]string{}}
	tags := l.refs[resource.RefTag]
	if id, ok := tags.byName[a.c.cfg.Tag]; ok {
		found.Tag = true
		found.TagTypes = tags.byID[id].ObjectTypes
		if len(found.TagTypes) == 0 {
			found.TagTypes = marked // a NetBox tag without object types may be used on any
		}
	}
	defs, err := sweep[wireCustomField](ctx, a.c, pathCustomFields,
		url.Values{"name": {a.c.cfg.OwnerField, a.c.cfg.VNIField}, "fields": {"id,name,type,object_types"}}, a.t)
	if err != nil {
		return fmt.Errorf("apply: read custom fields: %w", err)
	}
	for _, d := range defs {
		found.Fields[d.Name] = d.ObjectTypes
	}
	m := ownership.Marker{Tag: a.c.cfg.Tag, OwnerField: a.c.cfg.OwnerField}
	if err := m.Check("netbox", found, marked, fields); err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	return nil
}
