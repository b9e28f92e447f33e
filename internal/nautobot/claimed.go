package nautobot

import (
	"context"
	"fmt"
	"maps"
	"net/netip"
	"net/url"
	"slices"

	"github.com/ipsync/ipsync/internal/bulkwrite"
	"github.com/ipsync/ipsync/internal/resource"
)

var _ bulkwrite.Claimer[map[string]any] = (*applier)(nil)

// wireHolder is an object read by its natural key, with its marker.
type wireHolder struct {
	base
	Name    string `json:"name"`
	VID     int    `json:"vid"`
	Prefix  string `json:"prefix"`
	Address string `json:"address"`
	ASN     int64  `json:"asn"`
}

// keyFields are, per kind, the filter naming the related object a key
// lies within ("" for none) and the filter of the key's own field, both
// named as the create's body names them.
func keyFields(k resource.Kind) (within, key string, ok bool) {
	switch k {
	case resource.KindNamespace, resource.KindVLANGroup:
		return "", "name", true
	case resource.KindVLAN:
		return "vlan_group", "vid", true
	case resource.KindPrefix:
		return "namespace", "prefix", true
	case resource.KindIPAddress:
		return "namespace", "address", true
	case resource.KindASN:
		return "", "asn", true
	}
	return "", "", false
}

// holds says whether h holds the key of a create's body; the read was
// already narrowed to the related object the key lies within.
func (h wireHolder) holds(k resource.Kind, body map[string]any) bool {
	v := fmt.Sprint(body[keyField(k)])
	switch k {
	case resource.KindNamespace, resource.KindVLANGroup:
		return h.Name == v
	case resource.KindVLAN:
		return fmt.Sprint(h.VID) == v
	case resource.KindPrefix:
		a, err1 := netip.ParsePrefix(h.Prefix)
		b, err2 := netip.ParsePrefix(v)
		return err1 == nil && err2 == nil && a.Masked() == b.Masked()
	case resource.KindIPAddress:
		a, err1 := netip.ParsePrefix(h.Address)
		b, err2 := netip.ParsePrefix(v)
		return err1 == nil && err2 == nil && a.Addr() == b.Addr()
	}
	return fmt.Sprint(h.ASN) == v
}

// keyField is the body field, and filter, of a kind's own key.
func keyField(k resource.Kind) string {
	_, key, _ := keyFields(k)
	return key
}

// refValue is how a filter names a related object the body refers to:
// by id, or by the name of a natural-key reference.
func refValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		if n, ok := x["name"].(string); ok {
			return n
		}
	}
	return fmt.Sprint(v)
}

// Claimed reads, for creates Nautobot refused, the objects holding their
// natural keys, and returns those marked as the item's own owner's (see
// bulkwrite.Claimer). Ids are not enough here: an earlier run chose
// ids of its own.
func (a *applier) Claimed(ctx context.Context, k resource.Kind, items []item) (map[int]string, error) {
	ep, ok := endpointOf(k)
	within, key, known := keyFields(k)
	if !ok || !known {
		return nil, nil
	}
	groups := map[string][]int{}
	for i, it := range items {
		g := ""
		if within != "" {
			g = refValue(it.Body[within])
		}
		groups[g] = append(groups[g], i)
	}
	out := map[int]string{}
	const chunk = 100
	for _, g := range slices.Sorted(maps.Keys(groups)) {
		idx := groups[g]
		for lo := 0; lo < len(idx); lo += chunk {
			part := idx[lo:min(lo+chunk, len(idx))]
			q := url.Values{}
			if within != "" {
				q.Set(within, g)
			}
			for _, i := range part {
				q.Add(key, fmt.Sprint(items[i].Body[key]))
			}
			got, err := sweep[wireHolder](ctx, a.c, ep.path, q, a.t)
			if err != nil {
				return nil, err
			}
			for _, i := range part {
				want := items[i].Change.Desired.Meta().Owner
				for _, h := range got {
					if h.holds(k, items[i].Body) && a.ownerOf(h.base) == want {
						out[i] = h.ID
					}
				}
			}
		}
	}
	return out, nil
}

// AsUpdate is a create's body sent as an update of the object id: every
// field the plan wants, on the object that holds the key.
func (a *applier) AsUpdate(it item, id string) item {
	b := maps.Clone(it.Body)
	b["id"] = id
	return item{Change: it.Change, ID: id, Body: b}
}

// Unguarded is false: Nautobot keeps every key ipsync writes unique.
func (a *applier) Unguarded(item) bool { return false }
