package netbox

import (
	"context"
	"fmt"
	"net/url"
	"slices"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// preflight reads the lookups the writes refer to by id, and checks,
// before the first write, that the marker exists where it will be
// written: without the tag or the owner field an object would be written
// that no owner can find again, and NetBox refuses a custom field it has
// no definition for only object by object.
func (a *applier) preflight(ctx context.Context, writes []*plan.Change) error {
	l, err := a.c.fetchLookups(ctx, a.t)
	if err != nil {
		return fmt.Errorf("apply: read lookups: %w", err)
	}
	marked := map[string]bool{} // object types that get the marker
	vni := false
	for _, ch := range writes {
		if ch.Action == plan.Delete {
			continue
		}
		if ep, ok := endpointOf(ch.Key.Kind); ok {
			marked[ep.ot] = true
		}
		if p, ok := ch.Desired.(*resource.Prefix); ok && p.VNI != 0 {
			vni = true
		}
	}
	if len(marked) == 0 {
		return nil
	}
	tags := l.refs[resource.RefTag]
	id, ok := tags.byName[a.c.cfg.Tag]
	if !ok {
		return fmt.Errorf("apply: tag %q does not exist in netbox; run ipsync bootstrap first", a.c.cfg.Tag)
	}
	fields, err := sweep[wireCustomField](ctx, a.c, pathCustomFields, url.Values{"name": {a.c.cfg.OwnerField, a.c.cfg.VNIField}}, a.t)
	if err != nil {
		return fmt.Errorf("apply: read custom fields: %w", err)
	}
	need := map[string][]string{a.c.cfg.OwnerField: {}}
	if vni {
		need[a.c.cfg.VNIField] = []string{"ipam.prefix"}
	}
	for ot := range marked {
		need[a.c.cfg.OwnerField] = append(need[a.c.cfg.OwnerField], ot)
		if types := tags.byID[id].ObjectTypes; len(types) > 0 && !slices.Contains(types, ot) {
			return fmt.Errorf("apply: tag %q may not be used on %s; run ipsync bootstrap first", a.c.cfg.Tag, ot)
		}
	}
	for name, types := range need {
		i := slices.IndexFunc(fields, func(f wireCustomField) bool { return f.Name == name })
		if i < 0 {
			return fmt.Errorf("apply: custom field %q does not exist in netbox; run ipsync bootstrap first", name)
		}
		for _, ot := range types {
			if !slices.Contains(fields[i].ObjectTypes, ot) {
				return fmt.Errorf("apply: custom field %q is not defined for %s; run ipsync bootstrap first", name, ot)
			}
		}
	}
	return nil
}
