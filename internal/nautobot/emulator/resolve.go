package emulator

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// resolve finds the related object of type ct that raw names, with the
// message Nautobot's related fields give when it cannot. limit is a
// content type the target must allow (limit_choices_to), or "".
func (s *store) resolve(ct string, v any, limit string) (*record, string) {
	t := s.tables[ct]
	var params map[string]any
	switch x := v.(type) {
	case map[string]any:
		switch {
		case x["url"] != nil:
			v = x["url"]
		case x["id"] != nil:
			v = x["id"]
		default:
			params = flatten("", x)
		}
	}
	if params == nil {
		str, ok := v.(string)
		if !ok {
			return nil, fmt.Sprintf("Related objects must be referenced by ID or by dictionary of attributes. Received an unrecognized value: %v", v)
		}
		if strings.Contains(str, "/") {
			parts := strings.Split(strings.TrimRight(str, "/"), "/")
			str = parts[len(parts)-1]
		}
		if uuid.Validate(str) != nil {
			// Not a UUID: a composite key, which for the kinds the
			// emulator serves is the natural key's one field, or a
			// top-level location's name.
			if r := s.byName(ct, str); r != nil && allows(r, limit) {
				return r, ""
			}
			key := map[string]any{uniqueParam(t.def): str}
			if ct == ctLocation {
				key["parent__name"] = nil
			}
			return nil, "Related object not found using the provided attributes: " + pyRepr(key)
		}
		r := t.byID[strings.ToLower(str)]
		if r == nil || !allows(r, limit) {
			return nil, fmt.Sprintf("Related object not found using the provided attributes: {'pk': UUID('%s')}", strings.ToLower(str))
		}
		return r, ""
	}
	matches, msg := s.match(t, params)
	if msg != "" {
		return nil, msg
	}
	matches = slices.DeleteFunc(matches, func(r *record) bool { return !allows(r, limit) })
	switch len(matches) {
	case 0:
		return nil, "Related object not found using the provided attributes: " + pyRepr(params)
	case 1:
		return matches[0], ""
	}
	return nil, "Multiple objects match the provided attributes: " + pyRepr(params)
}

func allows(r *record, ct string) bool {
	return ct == "" || slices.Contains(r.contentTypes, ct)
}

// flatten turns nested dicts into Django lookups, as Nautobot's
// dict_to_filter_params does: {"vlan_group": {"name": "g"}} becomes
// {"vlan_group__name": "g"}.
func flatten(prefix string, m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			for sk, sv := range flatten(prefix+k+"__", sub) {
				out[sk] = sv
			}
			continue
		}
		out[prefix+k] = v
	}
	return out
}

// match finds the records of t whose attributes equal params, using an
// index where one fits.
func (s *store) match(t *table, params map[string]any) ([]*record, string) {
	if len(params) == 1 && t.def.uniqueField != "" {
		if v, ok := params[t.def.uniqueField]; ok {
			if r := t.byKey[scalar(v)]; r != nil {
				return []*record{r}, ""
			}
			return nil, ""
		}
	}
	if t.def.ct == ctVLAN && len(params) == 2 && params["vid"] != nil {
		group := ""
		if g, ok := params["vlan_group__name"]; ok {
			if r := s.tables[ctVLANGroup].byKey[scalar(g)]; r != nil {
				group = r.id
			}
		} else if g, ok := params["vlan_group"]; ok {
			group = strings.ToLower(scalar(g))
		}
		if group != "" {
			vid, _ := strconv.Atoi(scalar(params["vid"]))
			if r := s.vlans[vlanKey{group: group, vid: vid}]; r != nil {
				return []*record{r}, ""
			}
			return nil, ""
		}
	}
	var out []*record
	for _, r := range t.byID {
		all := true
		for k, v := range params {
			got, ok := s.attr(r, k)
			if !ok {
				return nil, fmt.Sprintf("Cannot resolve keyword '%s' into field.", strings.Split(k, "__")[0])
			}
			if got != scalar(v) {
				all = false
				break
			}
		}
		if all {
			out = append(out, r)
		}
	}
	return out, ""
}

func uniqueParam(d *kindDef) string {
	if d.uniqueField != "" {
		return d.uniqueField
	}
	return "name"
}

// attr is a record's attribute as a lookup path names it.
func (s *store) attr(r *record, path string) (string, bool) {
	head, rest, nested := strings.Cut(path, "__")
	if nested {
		var id, ct string
		switch head {
		case "vlan_group":
			id, ct = r.group, ctVLANGroup
		case "namespace":
			id, ct = r.namespace, ctNamespace
		case "location":
			id, ct = r.location, ctLocation
		case "location_type":
			id, ct = r.locationType, ctLocationType
		case "status":
			id, ct = r.status, ctStatus
		case "parent":
			id, ct = r.parent, r.ct
			if r.ct == ctIPAddress {
				ct = ctPrefix
			}
		default:
			return "", false
		}
		rel := s.get(ct, id)
		if rel == nil {
			return "", true
		}
		return s.attr(rel, rest)
	}
	switch head {
	case "id", "pk":
		return r.id, true
	case "name", "key":
		return r.name, true
	case "vid":
		return strconv.Itoa(r.vid), true
	case "asn":
		return strconv.FormatInt(r.asn, 10), true
	case "vlan_group":
		return r.group, true
	case "namespace":
		return r.namespace, true
	case "prefix":
		if r.ct == ctPrefix {
			return r.net.String(), true
		}
		return r.prefix, true
	case "network":
		return r.net.Addr().String(), true
	case "prefix_length", "mask_length":
		return strconv.Itoa(r.net.Bits()), true
	case "host":
		return r.net.Addr().String(), true
	case "address":
		return r.net.String(), true
	case "location":
		return r.location, true
	}
	return "", false
}

// scalar renders a JSON value the way it compares with stored attributes.
func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		if x {
			return "True"
		}
		return "False"
	case nil:
		return "None"
	}
	return fmt.Sprint(v)
}

// pyRepr renders params as Python prints a dict, which is what appears in
// Nautobot's messages.
func pyRepr(params map[string]any) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		v := params[k]
		var val string
		switch x := v.(type) {
		case string:
			val = "'" + x + "'"
		default:
			val = scalar(x)
		}
		parts[i] = "'" + k + "': " + val
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// named are the records of t a filter value names by natural key: one by
// its unique field, or the locations of that name, which may be several
// under different parents.
func (s *store) named(t *table, v string) []*record {
	if t.def.uniqueField != "" {
		if r := t.byKey[v]; r != nil {
			return []*record{r}
		}
		return nil
	}
	var out []*record
	if t.def.ct == ctLocation {
		for _, r := range t.byID {
			if r.name == v {
				out = append(out, r)
			}
		}
	}
	return out
}
