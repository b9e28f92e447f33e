package emulator

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// checks are expectations on an answer: a path to what it must be. A path
// is dotted keys and list indexes ("results.0.vlan_group"), "" for the
// whole body, or "header:Name" for a response header. What it must be is a
// JSON value (strings and nums filled in as in bodies) or a matcher below.
type checks map[string]any

type check struct {
	path string
	want any
}

// sorted gives checks in a stable order, so failures read the same each run.
func (c checks) sorted() []check {
	out := make([]check, 0, len(c))
	for p, w := range c {
		out = append(out, check{p, w})
	}
	slices.SortFunc(out, func(a, b check) int { return strings.Compare(a.path, b.path) })
	return out
}

// Matchers.
type (
	// absentM: the key is not in the answer (a write-only field, a
	// many-to-many field left out).
	absentM struct{}
	// presentM: the key is there, with any value.
	presentM struct{}
	// refM: a related object at depth 0, exactly {"id","object_type","url"}.
	refM struct{ ct, id string }
	// lenM: a list of this length.
	lenM int
	// bodyM: the whole value equals this JSON text (placeholders filled in).
	bodyM string
	// notM: anything but this value.
	notM struct{ v any }
	// hasM: a string containing this.
	hasM string
	// perLine: the value differs between release lines.
	perLine struct{ v3, v24 any }
	// orderedM: a list whose elements' field is in ascending order, or
	// descending with desc.
	orderedM struct {
		field string
		desc  bool
	}
)

var (
	absent  = absentM{}
	present = presentM{}
)

func ref(ct, id string) refM { return refM{ct, id} }

// apiPaths are the list endpoints of object types, for urls in refs.
var apiPaths = map[string]string{
	"ipam.namespace":                       "ipam/namespaces",
	"ipam.vlangroup":                       "ipam/vlan-groups",
	"ipam.vlan":                            "ipam/vlans",
	"ipam.prefix":                          "ipam/prefixes",
	"ipam.ipaddress":                       "ipam/ip-addresses",
	"ipam.prefixlocationassignment":        "ipam/prefix-location-assignments",
	"dcim.location":                        "dcim/locations",
	"dcim.locationtype":                    "dcim/location-types",
	"extras.status":                        "extras/statuses",
	"extras.role":                          "extras/roles",
	"extras.tag":                           "extras/tags",
	"extras.customfield":                   "extras/custom-fields",
	"tenancy.tenant":                       "tenancy/tenants",
	"nautobot_bgp_models.autonomoussystem": "plugins/bgp/autonomous-systems",
}

// check returns why the answer does not meet want at path, or "".
func (r *run) check(got reply, path string, want any) string {
	var v any
	var ok bool
	if name, isHeader := strings.CutPrefix(path, "header:"); isHeader {
		vals := got.header.Values(name)
		if ok = len(vals) > 0; ok {
			v = strings.Join(vals, ", ")
		}
	} else {
		v, ok = lookup(got.body, path)
	}
	return r.match(v, ok, want)
}

// match compares a value (ok false when its key is absent) with want.
// Lists and objects in want are matched element by element, so they may
// hold matchers; an object must have exactly want's keys.
func (r *run) match(v any, ok bool, want any) string {
	if pl, isPL := want.(perLine); isPL {
		want = pl.v3
		if r.tg.line == line24 {
			want = pl.v24
		}
	}
	switch want.(type) {
	case absentM:
		if ok {
			return fmt.Sprintf("present (%s), want absent", show(v))
		}
		return ""
	case presentM:
		if !ok {
			return "absent, want present"
		}
		return ""
	}
	if !ok {
		return fmt.Sprintf("absent, want %s", r.describe(want))
	}
	switch w := want.(type) {
	case refM:
		id := r.subst(w.id)
		exp := map[string]any{"id": id, "object_type": w.ct, "url": r.tg.base + "/api/" + apiPaths[w.ct] + "/" + id + "/"}
		if !reflect.DeepEqual(v, exp) {
			return fmt.Sprintf("%s, want %s", show(v), show(exp))
		}
	case lenM:
		list, isList := v.([]any)
		if !isList || len(list) != int(w) {
			return fmt.Sprintf("%s, want a list of %d", show(v), int(w))
		}
	case bodyM:
		var exp any
		if err := json.Unmarshal([]byte(r.subst(string(w))), &exp); err != nil {
			return fmt.Sprintf("bad expectation %s: %v", w, err)
		}
		if !reflect.DeepEqual(v, exp) {
			return fmt.Sprintf("%s, want %s", show(v), show(exp))
		}
	case notM:
		if reflect.DeepEqual(v, normalize(r.substAny(w.v))) {
			return fmt.Sprintf("%s, want anything else", show(v))
		}
	case orderedM:
		list, isList := v.([]any)
		if !isList {
			return fmt.Sprintf("%s, want a list", show(v))
		}
		for i := 1; i < len(list); i++ {
			a, _ := lookup(list[i-1], w.field)
			b, _ := lookup(list[i], w.field)
			if c := compareValue(a, b); c > 0 && !w.desc || c < 0 && w.desc {
				return fmt.Sprintf("[%d].%s %s comes before [%d].%s %s, want %s", i-1, w.field, show(a), i, w.field, show(b), r.describe(want))
			}
		}
	case hasM:
		s, isStr := v.(string)
		if !isStr || !strings.Contains(s, r.subst(string(w))) {
			return fmt.Sprintf("%s, want a string containing %q", show(v), r.subst(string(w)))
		}
	case []any:
		list, isList := v.([]any)
		if !isList || len(list) != len(w) {
			return fmt.Sprintf("%s, want %s", show(v), r.describe(want))
		}
		for i := range w {
			if msg := r.match(list[i], true, w[i]); msg != "" {
				return fmt.Sprintf("[%d]: %s", i, msg)
			}
		}
	case map[string]any:
		m, isMap := v.(map[string]any)
		if !isMap {
			return fmt.Sprintf("%s, want %s", show(v), r.describe(want))
		}
		keys := map[string]bool{}
		for k, e := range w {
			k = r.subst(k)
			keys[k] = true
			got, has := m[k]
			if msg := r.match(got, has, e); msg != "" {
				return fmt.Sprintf(".%s: %s", k, msg)
			}
		}
		for k := range m {
			if !keys[k] {
				return fmt.Sprintf("%s has %q, want only %s", show(v), k, r.describe(want))
			}
		}
	default:
		if exp := normalize(r.substAny(want)); !reflect.DeepEqual(v, exp) {
			return fmt.Sprintf("%s, want %s", show(v), show(exp))
		}
	}
	return ""
}

// describe shows what want asks for, for messages.
func (r *run) describe(want any) string {
	switch w := want.(type) {
	case refM:
		return fmt.Sprintf("a %s ref to %s", w.ct, r.subst(w.id))
	case lenM:
		return fmt.Sprintf("a list of %d", int(w))
	case bodyM:
		return r.subst(string(w))
	case hasM:
		return fmt.Sprintf("a string containing %q", r.subst(string(w)))
	case notM:
		return "anything but " + show(r.substAny(w.v))
	case orderedM:
		if w.desc {
			return "a list by " + w.field + ", descending"
		}
		return "a list by " + w.field
	case []any, map[string]any:
		return fmt.Sprintf("%v", want)
	}
	return show(r.substAny(want))
}

// normalize gives a Go value the types decoded JSON has.
func normalize(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(raw, &out)
	return out
}

func show(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(raw)
}

// lookup finds the value at a dotted path.
func lookup(v any, path string) (any, bool) {
	if path == "" {
		return v, true
	}
	for _, part := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[part]
			if !ok {
				return nil, false
			}
			v = e
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}
