package netbox

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"

	"github.com/ipsync/ipsync/internal/ownership"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sot"
)

// Owners reads the objects ids of kind k again, for the engine's check
// before it updates or deletes them that their owner is still the one
// the plan saw.
func (a *applier) Owners(ctx context.Context, k resource.Kind, ids []string) (map[string]resource.Owner, error) {
	if err := sot.Holds("netbox", k); err != nil {
		return nil, err
	}
	ep, _ := endpointOf(k)
	ns := make([]int, 0, len(ids))
	for _, id := range ids {
		n, err := strconv.Atoi(id)
		if err != nil {
			return nil, fmt.Errorf("%s id %q: %w", k, id, err)
		}
		ns = append(ns, n)
	}
	got, err := byIDs[base](ctx, a.c, ep.path, ns, url.Values{"fields": {baseFields}}, a.t)
	if err != nil {
		return nil, err
	}
	tag := 0
	if l := a.r.k.lookups(); l != nil {
		tag = l.refs[resource.RefTag].byName[a.c.cfg.Tag]
	}
	m := ownership.Marker{Tag: a.c.cfg.Tag, OwnerField: a.c.cfg.OwnerField}
	out := make(map[string]resource.Owner, len(got))
	for _, b := range got {
		tagged := tag != 0 && slices.ContainsFunc(b.Tags, func(r ref) bool { return r.ID == tag })
		out[strconv.Itoa(b.ID)] = m.Owner(tagged, b.CustomFields)
	}
	return out, nil
}
