package changelog

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ipsync/ipsync/internal/resource"
)

// Miss is an object where a view kept up from the change log and a whole
// read of the target disagree.
type Miss struct {
	ID   string
	Key  resource.Key // as the whole read has it, or as the view had it when the read lacks it
	What string       // how they differ
}

func (m Miss) String() string {
	return fmt.Sprintf("%s %s (id %s): %s", m.Key.Kind, m.Key.Name, m.ID, m.What)
}

// Compare lists where view and full disagree on what a plan compares: which
// objects there are (by the target's id), their keys, owners and compared
// fields.
func Compare(view, full []resource.Object) []Miss {
	return CompareBy(view, full, func(o resource.Object) string { return string(o.Key().Kind) + " " + o.Meta().ID })
}

// CompareBy is Compare matching objects by id, such as their keys for
// objects a target has not given ids (those mapped from Neutron).
func CompareBy(view, full []resource.Object, id func(resource.Object) string) []Miss {
	byID := func(objs []resource.Object) map[string]resource.Object {
		m := make(map[string]resource.Object, len(objs))
		for _, o := range objs {
			m[id(o)] = o
		}
		return m
	}
	v, f := byID(view), byID(full)
	var out []Miss
	for _, id := range slices.Sorted(maps.Keys(f)) {
		fo := f[id]
		vo, ok := v[id]
		switch {
		case !ok:
			out = append(out, Miss{ID: fo.Meta().ID, Key: fo.Key(), What: "missing from the view"})
		case vo.Key() != fo.Key():
			out = append(out, Miss{ID: fo.Meta().ID, Key: fo.Key(), What: "the view has it as " + vo.Key().Name})
		case vo.Meta().Owner != fo.Meta().Owner:
			out = append(out, Miss{ID: fo.Meta().ID, Key: fo.Key(), What: fmt.Sprintf("owner %q in the view, %q in the target", vo.Meta().Owner, fo.Meta().Owner)})
		default:
			if d := fo.Diff(vo); len(d) > 0 {
				var s []string
				for _, fd := range d {
					s = append(s, fmt.Sprintf("%s %q in the view, %q in the target", fd.Field, fd.Old, fd.New))
				}
				out = append(out, Miss{ID: fo.Meta().ID, Key: fo.Key(), What: strings.Join(s, "; ")})
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(v)) {
		if _, ok := f[id]; !ok {
			out = append(out, Miss{ID: v[id].Meta().ID, Key: v[id].Key(), What: "gone from the target, still in the view"})
		}
	}
	return out
}
