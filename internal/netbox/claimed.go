package netbox

import (
	"context"
	"maps"
	"strconv"

	"github.com/ipsync/ipsync/internal/bulkwrite"
	"github.com/ipsync/ipsync/internal/resource"
)

var _ bulkwrite.Claimer[map[string]any] = (*applier)(nil)

// Claimed finds, for creates NetBox refused, the objects of their natural
// keys that carry the marker of the item's owner (see bulkwrite.Claimer),
// as the recovery of a lost create does. A saved plan's writes claim
// nothing: each update must carry the version it was planned on, and a
// target written by an earlier run since the plan fails the plan's
// staleness check before any write.
func (a *applier) Claimed(ctx context.Context, k resource.Kind, items []item) (map[int]string, error) {
	ep, ok := endpointOf(k)
	if !ok || a.saved {
		return nil, nil
	}
	found, err := a.lostCreates(ctx, ep, items)
	if err != nil {
		return nil, err
	}
	out := map[int]string{}
	for i, it := range items {
		if id, ok := found[it.Change.Key]; ok {
			out[i] = strconv.Itoa(id)
		}
	}
	return out, nil
}

// AsUpdate is a create's body sent as an update of the object id.
func (a *applier) AsUpdate(it item, id string) item {
	b := maps.Clone(it.Body)
	b["id"], _ = strconv.Atoi(id)
	return item{Change: it.Change, ID: id, Body: b}
}

// Unguarded says NetBox keeps the key of a create not unique: a VRF's
// name, and a VLAN group's without a scope.
func (a *applier) Unguarded(it item) bool {
	switch it.Change.Key.Kind {
	case resource.KindNamespace:
		return true
	case resource.KindVLANGroup:
		return it.Body["scope_type"] == nil
	}
	return false
}
