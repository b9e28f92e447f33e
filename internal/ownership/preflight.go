package ownership

import (
	"fmt"
	"maps"
	"slices"
)

// Found is what a target holds of the marker: whether the tag exists and
// the object types it may be used on, and the object types each custom
// field is defined for ("ipam.prefix"; Nautobot's content types, NetBox's
// object types).
type Found struct {
	Tag      bool
	TagTypes []string
	Fields   map[string][]string
	// FilterLogic is each custom field's filter logic, where the server
	// said it ("exact", "loose", "disabled").
	FilterLogic map[string]string
}

// Check says what is missing for writes to the object types marked (the
// types that get the tag and the owner field) and to the further custom
// fields needed (key -> object types, e.g. the VNI field on prefixes), in
// server's words, with what to run to fix it. A server that lacks a
// custom field drops its values silently, which would leave objects
// without an owner; so this runs before the first write.
func (m Marker) Check(server string, found Found, marked []string, fields map[string][]string) error {
	if len(marked) == 0 {
		return nil
	}
	if !found.Tag {
		return fmt.Errorf("tag %q does not exist in %s; run ipsync bootstrap first", m.Tag, server)
	}
	marked = slices.Sorted(slices.Values(marked))
	for _, t := range marked {
		if !slices.Contains(found.TagTypes, t) {
			return fmt.Errorf("tag %q may not be used on %s; run ipsync bootstrap first", m.Tag, t)
		}
	}
	need := map[string][]string{m.OwnerField: marked}
	for k, types := range fields {
		need[k] = append(need[k], types...)
	}
	if err := m.ExactOwner(server, found.FilterLogic[m.OwnerField]); err != nil {
		return err
	}
	for _, key := range slices.Sorted(maps.Keys(need)) {
		have, ok := found.Fields[key]
		if !ok {
			return fmt.Errorf("custom field %q does not exist in %s; run ipsync bootstrap first", key, server)
		}
		for _, t := range need[key] {
			if !slices.Contains(have, t) {
				return fmt.Errorf("custom field %q is not defined for %s; run ipsync bootstrap first", key, t)
			}
		}
	}
	return nil
}

// ExactOwner refuses an owner field whose filter logic is not exact
// ("" when the server did not say). ipsync finds an owner's objects by
// filtering on the field: "disabled" ignores the filter, so every object
// would look like the owner's, and "loose" matches a part of the value,
// so static:a would find static:ab's. Either would let a run claim, or
// delete, what another owner holds.
func (m Marker) ExactOwner(server, logic string) error {
	if logic == "" || logic == "exact" {
		return nil
	}
	return fmt.Errorf("custom field %q has filter logic %q in %s: ipsync finds each owner's objects by filtering on it, which needs exact; set its filter logic to exact (%s's custom field settings) and run again",
		m.OwnerField, logic, server, server)
}
