package netbox

import (
	"context"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/ipsync/ipsync/internal/bulkwrite"
	"github.com/ipsync/ipsync/internal/resource"
)

// wireKey holds the fields of any kind's natural key.
type wireKey struct {
	ID           int            `json:"id"`
	Name         string         `json:"name"`
	Group        *ref           `json:"group"`
	VID          int            `json:"vid"`
	Prefix       string         `json:"prefix"`
	Address      string         `json:"address"`
	VRF          *ref           `json:"vrf"`
	ASN          int64          `json:"asn"`
	CustomFields map[string]any `json:"custom_fields"`
}

func (w *wireKey) ObjectID() int { return w.ID }

// keyFilter is, per kind, the filter that narrows a search by natural key,
// the fields to read, and the key of a read object or of a create's body
// in one form.
func keyFilter(k resource.Kind) (filter, fields string, ok bool) {
	switch k {
	case resource.KindNamespace, resource.KindVLANGroup:
		return "name", "id,name", true
	case resource.KindVLAN:
		return "vid", "id,group,vid", true
	case resource.KindPrefix:
		return "prefix", "id,prefix,vrf", true
	case resource.KindIPAddress:
		return "address", "id,address,vrf", true
	case resource.KindASN:
		return "asn", "id,asn", true
	}
	return "", "", false
}

func host(a string) string {
	if p, err := netip.ParsePrefix(a); err == nil {
		return p.Addr().String()
	}
	return a
}

func (w wireKey) key(k resource.Kind) string {
	switch k {
	case resource.KindNamespace, resource.KindVLANGroup:
		return w.Name
	case resource.KindVLAN:
		return fmt.Sprintf("%d/%d", refID(w.Group), w.VID)
	case resource.KindPrefix:
		return fmt.Sprintf("%s|%d", w.Prefix, refID(w.VRF))
	case resource.KindIPAddress:
		return fmt.Sprintf("%s|%d", host(w.Address), refID(w.VRF))
	}
	return fmt.Sprint(w.ASN)
}

// bodyKey is the key of a create's body in wireKey's form, and the value
// to filter by; ok is false where the body names a related object not by
// id (then nothing can be matched).
func bodyKey(k resource.Kind, b map[string]any) (key, filter string, ok bool) {
	id := func(v any) (int, bool) {
		switch x := v.(type) {
		case nil:
			return 0, true
		case int:
			return x, true
		}
		return 0, false
	}
	switch k {
	case resource.KindNamespace, resource.KindVLANGroup:
		n := fmt.Sprint(b["name"])
		return n, n, true
	case resource.KindVLAN:
		g, ok := id(b["group"])
		return fmt.Sprintf("%d/%v", g, b["vid"]), fmt.Sprint(b["vid"]), ok
	case resource.KindPrefix:
		v, ok := id(b["vrf"])
		return fmt.Sprintf("%v|%d", b["prefix"], v), fmt.Sprint(b["prefix"]), ok
	case resource.KindIPAddress:
		v, ok := id(b["vrf"])
		a := fmt.Sprint(b["address"])
		return fmt.Sprintf("%s|%d", host(a), v), a, ok
	}
	return fmt.Sprint(b["asn"]), fmt.Sprint(b["asn"]), true
}

// alreadyWritten parts the items of a create whose outcome is unknown into
// those NetBox has (their ids set, by lostCreates) and those still to send.
// Until until, the moment NetBox is done with every attempt sent, it looks
// again while a racy item is missing: that attempt may still be running,
// and a second copy sent now would be kept.
func (a *applier) alreadyWritten(ctx context.Context, ep endpoint, items []item, until time.Time) (written, rest []item, err error) {
	waiting := false
	err = bulkwrite.AwaitOutcome(ctx, a.c.clock, until, func(ctx context.Context) (bool, error) {
		found, err := a.lostCreates(ctx, ep, items)
		if err != nil {
			return false, err
		}
		written, rest = nil, nil
		for _, it := range items {
			if id, ok := found[it.Change.Key]; ok {
				it.ID = strconv.Itoa(id)
				written = append(written, it)
			} else {
				rest = append(rest, it)
			}
		}
		missing := slices.ContainsFunc(rest, a.racy)
		if missing && !waiting && a.c.clock.Now().Before(until) {
			waiting = true
			a.c.log.Warn("a create's answer was lost and netbox may still be writing it: waiting for its outcome before sending it again, since netbox would keep a second copy",
				"path", ep.path, "objects", len(rest), "until", until)
		}
		return missing, nil
	})
	return written, rest, err
}

// racy says whether NetBox would write a second copy of the create it
// sent while the first is still being written: its key is unique in no
// database constraint. A VRF's name and a scopeless VLAN group's are not
// unique at all (Unguarded); a prefix or an address is refused as a
// duplicate only by a check before the write, which sees nothing of a
// transaction not yet committed. A VLAN's group and vid, a scoped group's
// name and an ASN are unique constraints: a second copy waits for the
// first and is refused.
func (a *applier) racy(it item) bool {
	switch it.Change.Key.Kind {
	case resource.KindPrefix, resource.KindIPAddress:
		return true
	}
	return a.Unguarded(it)
}

// mayBeRacy says whether a create of kind k may be racy, as far as the
// kind tells.
func mayBeRacy(k resource.Kind) bool {
	switch k {
	case resource.KindNamespace, resource.KindVLANGroup, resource.KindPrefix, resource.KindIPAddress:
		return true
	}
	return false
}

// lostCreates finds which of the items an earlier attempt of their create
// wrote: objects of their natural key that carry the marker of their
// owner. NetBox picks ids itself, so the key and the marker are what
// identifies them.
func (a *applier) lostCreates(ctx context.Context, ep endpoint, items []item) (map[resource.Key]int, error) {
	found := map[resource.Key]int{}
	if len(items) == 0 {
		return found, nil
	}
	k := items[0].Change.Key.Kind
	filter, fields, ok := keyFilter(k)
	if !ok {
		return found, nil
	}
	l := a.r.k.lookups()
	tag := 0
	if l != nil {
		tag = l.refs[resource.RefTag].byName[a.c.cfg.Tag]
	}
	byOwner := map[string]map[string]resource.Key{} // owner -> body key -> item key
	values := map[string][]string{}
	for _, it := range items {
		key, value, ok := bodyKey(k, it.Body)
		if !ok {
			continue
		}
		owner := string(it.Change.Desired.Meta().Owner)
		if byOwner[owner] == nil {
			byOwner[owner] = map[string]resource.Key{}
		}
		byOwner[owner][key] = it.Change.Key
		values[owner] = append(values[owner], value)
	}
	const chunk = 100
	for owner, vs := range values {
		for lo := 0; lo < len(vs); lo += chunk {
			q := url.Values{"fields": {fields + ",custom_fields"}, "cf_" + a.c.cfg.OwnerField: {owner}, filter: vs[lo:min(lo+chunk, len(vs))]}
			if tag != 0 {
				q.Set("tag_id", itoa(tag))
			}
			got, err := sweep[wireKey](ctx, a.c, ep.path, q, a.t)
			if err != nil {
				return nil, fmt.Errorf("check which objects a lost create wrote: %w", err)
			}
			for _, w := range got {
				// The filter is the server's; the owner is checked here
				// too, so that a field not filtered exactly can never
				// make another owner's object look like this one's.
				if o, _ := w.CustomFields[a.c.cfg.OwnerField].(string); o != owner {
					continue
				}
				if key, ok := byOwner[owner][w.key(k)]; ok {
					found[key] = w.ID
				}
			}
		}
	}
	return found, nil
}
