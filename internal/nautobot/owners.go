package nautobot

import (
	"context"
	"fmt"
	"slices"

	"github.com/ipsync/ipsync/internal/resource"
)

// Owners reads the objects ids of kind k again, for the engine's check
// before it updates or deletes them that their owner is still the one
// the plan saw.
func (a *applier) Owners(ctx context.Context, k resource.Kind, ids []string) (map[string]resource.Owner, error) {
	ep, ok := endpointOf(k)
	if !ok {
		return nil, fmt.Errorf("nautobot holds no %s objects", k)
	}
	got, err := byIDs[base](ctx, a.c, ep.path, ids, a.t)
	if err != nil {
		return nil, err
	}
	tag, _ := a.c.refID(refTag, a.c.cfg.Tag)
	m := a.c.ownerMarker()
	out := make(map[string]resource.Owner, len(got))
	for _, b := range got {
		tagged := tag != "" && slices.ContainsFunc(b.Tags, func(r ref) bool { return r.ID == tag })
		out[b.ID] = m.Owner(tagged, b.CustomFields)
	}
	return out, nil
}
