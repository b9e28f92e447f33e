package nautobot

import (
	"context"
	"slices"

	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sot"
)

// Owners reads the objects ids of kind k again, for the engine's check
// before it updates or deletes them that their owner is still the one
// the plan saw.
func (a *applier) Owners(ctx context.Context, k resource.Kind, ids []string) (map[string]resource.Owner, error) {
	if err := sot.Holds("nautobot", k); err != nil {
		return nil, err
	}
	ep, _ := endpointOf(k)
	got, err := byIDs[base](ctx, a.c, ep.path, ids, a.t)
	if err != nil {
		return nil, err
	}
	out := make(map[string]resource.Owner, len(got))
	for _, b := range got {
		out[b.ID] = a.ownerOf(b)
	}
	return out, nil
}

// ownerOf is the owner b's marker names, by the marker tag's id as the
// write's read knows it now.
func (a *applier) ownerOf(b base) resource.Owner {
	tag, _ := a.r.k.refID(refTag, a.c.cfg.Tag)
	tagged := tag != "" && slices.ContainsFunc(b.Tags, func(r ref) bool { return r.ID == tag })
	return a.c.ownerMarker().Owner(tagged, b.CustomFields)
}
