package sot

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// Ref is how a request body refers to the object named name: by id when
// the client knows it (from a read, or a create earlier in the same
// Apply), else by natural key ({"name": ...}), which the server resolves
// itself or refuses naming it. An empty name is null.
func Ref[ID any](name string, known func(string) (ID, bool)) any {
	if name == "" {
		return nil
	}
	if id, ok := known(name); ok {
		return id
	}
	return map[string]any{"name": name}
}

// Tags are a body's tags: the marker tag first, then the object's own.
func Tags(marker string, own []string, ref func(string) any) []any {
	out := []any{ref(marker)}
	for _, t := range own {
		if t != marker {
			out = append(out, ref(t))
		}
	}
	return out
}

// MarkerFields are the custom fields of o's body: its owner, and a prefix's VNI
// (null without one, so that an update clears it).
func MarkerFields(o resource.Object, ownerField, vniField string) map[string]any {
	cf := map[string]any{ownerField: string(o.Meta().Owner)}
	if p, ok := o.(*resource.Prefix); ok {
		cf[vniField] = nil
		if p.VNI != 0 {
			cf[vniField] = p.VNI
		}
	}
	return cf
}

// VNI reads a prefix's VNI custom field as the server sends it: absent
// or null is none.
func VNI(prefix string, cf map[string]json.RawMessage, field string) (uint32, error) {
	raw, ok := cf[field]
	if !ok {
		return 0, nil
	}
	var vni *uint32
	if err := json.Unmarshal(raw, &vni); err != nil {
		return 0, fmt.Errorf("prefix %s: custom field %s: %w", prefix, field, err)
	}
	if vni == nil {
		return 0, nil
	}
	return *vni, nil
}

// Patch is an update's or adopt's body: of full, the body a create of
// the desired object would send, the keys its changed fields are written
// in (keys gives them per field), plus the marker (tags and custom
// fields) in every case. missing is the value of a key full lacks, or
// an error where the server has no place for it.
func Patch(ch *plan.Change, id any, full map[string]any, keys func(field string) ([]string, error), missing func(field, key string) (any, error)) (map[string]any, error) {
	b := map[string]any{"id": id, "tags": full["tags"], "custom_fields": full["custom_fields"]}
	for _, f := range ch.Fields {
		ks, err := keys(f.Field)
		if err != nil {
			return nil, err
		}
		for _, k := range ks {
			v, ok := full[k]
			if !ok {
				if v, err = missing(f.Field, k); err != nil {
					return nil, err
				}
			}
			b[k] = v
		}
	}
	return b, nil
}

// Marked are the types (content or object types, typeOf gives a kind's)
// the writes put the marker on, and the custom fields they fill besides
// the owner's, each with the types it must be usable on: the VNI's on
// prefixes. Deletes write no marker.
func Marked(writes []*plan.Change, typeOf func(resource.Kind) (string, bool), vniField, prefixType string) (types []string, fields map[string][]string) {
	fields = map[string][]string{}
	for _, ch := range writes {
		if ch.Action == plan.Delete {
			continue
		}
		if t, ok := typeOf(ch.Key.Kind); ok && !slices.Contains(types, t) {
			types = append(types, t)
		}
		if p, ok := ch.Desired.(*resource.Prefix); ok && p.VNI != 0 {
			fields[vniField] = []string{prefixType}
		}
	}
	return types, fields
}
