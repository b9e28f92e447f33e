package netbox

import (
	"strings"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/resource"
)

// NetBox numbers each object type on its own, so a VLAN and a prefix may
// share an id, while a changelog.View holds objects by id alone. The view
// a Target follows holds them by kind and id ("vlan:10"); what Follow and
// Refresh return carries NetBox's ids, as List's objects do.

// viewed is an object as the view holds it.
type viewed struct {
	resource.Object
	meta resource.Meta
}

func (v *viewed) Meta() *resource.Meta { return &v.meta }

func viewID(k resource.Kind, id string) string { return string(k) + ":" + id }

// toView gives objs the ids the view holds them by.
func toView(objs []resource.Object) []resource.Object {
	out := make([]resource.Object, len(objs))
	for i, o := range objs {
		v := &viewed{Object: o, meta: *o.Meta()}
		v.meta.ID = viewID(o.Kind(), o.Meta().ID)
		out[i] = v
	}
	return out
}

// fromView returns the objects the view holds.
func fromView(objs []resource.Object) []resource.Object {
	out := make([]resource.Object, len(objs))
	for i, o := range objs {
		out[i] = o.(*viewed).Object
	}
	return out
}

// toViewChanges names the changed objects of the kinds the view holds by
// the view's ids; other types are left for the view to refuse.
func toViewChanges(ch changelog.Changes, kinds map[string]resource.Kind) changelog.Changes {
	out := changelog.Changes{Objects: make(map[string]map[string]bool, len(ch.Objects)), Entries: ch.Entries}
	for typ, ids := range ch.Objects {
		k, ok := kinds[typ]
		if !ok {
			out.Objects[typ] = ids
			continue
		}
		m := make(map[string]bool, len(ids))
		for id, deleted := range ids {
			m[viewID(k, id)] = deleted
		}
		out.Objects[typ] = m
	}
	return out
}

// fromViewIDs are the NetBox ids of the view's ids, by kind.
func fromViewIDs(ids map[resource.Kind][]string) map[resource.Kind][]string {
	out := make(map[resource.Kind][]string, len(ids))
	for k, list := range ids {
		for _, id := range list {
			out[k] = append(out[k], strings.TrimPrefix(id, string(k)+":"))
		}
	}
	return out
}
