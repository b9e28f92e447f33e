package emulator

import (
	"fmt"
	"math"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// errorDict is a DRF validation error body: field name (or "__all__",
// "non_field_errors") to messages.
type errorDict map[string][]string

func (e errorDict) add(field, msg string) { e[field] = append(e[field], msg) }

// decoder reads one request object into a record, collecting field errors
// the way DRF's serializer fields report them. On a partial update
// (PATCH) fields missing from the request keep their values. The object
// is parsed once; fields are read from the parsed values.
type decoder struct {
	s        *store
	raw      map[string]any
	partial  bool
	create   bool
	ct       string // content type of the record, for limit_choices_to
	legacy   bool   // API version 2.0/2.1: prefixes and VLANs have one location
	strictCF bool
	errs     errorDict
}

func (d *decoder) has(f string) bool { _, ok := d.raw[f]; return ok }

// field returns f's value, or false when f is absent; an absent required
// field is an error on create and full update.
func (d *decoder) field(f string, required bool) (any, bool) {
	v, ok := d.raw[f]
	if !ok {
		if required && !d.partial {
			d.errs.add(f, "This field is required.")
		}
		return nil, false
	}
	return v, true
}

func (d *decoder) str(f string, dst *string, required, allowBlank bool) {
	v, ok := d.field(f, required)
	if !ok {
		return
	}
	var s string
	switch x := v.(type) {
	case nil:
		d.errs.add(f, "This field may not be null.")
		return
	case string:
		s = strings.TrimSpace(x)
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	default:
		d.errs.add(f, "Not a valid string.")
		return
	}
	if s == "" && !allowBlank {
		d.errs.add(f, "This field may not be blank.")
		return
	}
	*dst = s
}

func (d *decoder) integer(f string, dst *int64, required bool, lo, hi int64) {
	v, ok := d.field(f, required)
	if !ok {
		return
	}
	if v == nil {
		d.errs.add(f, "This field may not be null.")
		return
	}
	n, ok := asInt(v)
	if !ok {
		d.errs.add(f, "A valid integer is required.")
		return
	}
	if n < lo {
		d.errs.add(f, fmt.Sprintf("Ensure this value is greater than or equal to %d.", lo))
		return
	}
	if n > hi {
		d.errs.add(f, fmt.Sprintf("Ensure this value is less than or equal to %d.", hi))
		return
	}
	*dst = n
}

// asInt accepts what DRF's IntegerField does: a number or a numeric string
// without a fractional part.
func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return 0, false
		}
		return int64(x), true
	case int64:
		return x, true
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(x, ".0")), 10, 64)
		return n, err == nil
	}
	return 0, false
}

func (d *decoder) boolean(f string, dst *bool) {
	v, ok := d.field(f, false)
	if !ok {
		return
	}
	switch x := v.(type) {
	case bool:
		*dst = x
	case string:
		switch strings.ToLower(x) {
		case "true", "1", "yes", "on":
			*dst = true
		case "false", "0", "no", "off":
			*dst = false
		default:
			d.errs.add(f, "Must be a valid boolean.")
		}
	case float64:
		*dst = x != 0
	default:
		d.errs.add(f, "Must be a valid boolean.")
	}
}

// choice reads a Nautobot ChoiceField: the value itself or {"value": v}.
func (d *decoder) choice(f string, dst *string, choices []choice, required bool) {
	v, ok := d.field(f, required)
	if !ok {
		return
	}
	if m, isMap := v.(map[string]any); isMap {
		val, has := m["value"]
		if !has {
			d.errs.add(f, `Value must be passed directly (e.g. "foo": 123) or as a dict with key "value" (e.g. "foo": {"value": 123}).`)
			return
		}
		v = val
	}
	s, _ := v.(string)
	if s == "" {
		d.errs.add(f, "This field may not be blank.")
		return
	}
	for _, c := range choices {
		if c.value == s {
			*dst = s
			return
		}
	}
	d.errs.add(f, fmt.Sprintf("%v is not a valid choice.", v))
}

// choice is a value of a choice field and its label.
type choice struct{ value, label string }

func labelOf(choices []choice, v string) string {
	for _, c := range choices {
		if c.value == v {
			return c.label
		}
	}
	return v
}

func (d *decoder) ipnet(f string, dst *netip.Prefix, required bool) {
	v, ok := d.field(f, required)
	if !ok {
		return
	}
	s, isStr := v.(string)
	if !isStr {
		d.errs.add(f, "This field may not be null.")
		return
	}
	p, err := netip.ParsePrefix(strings.TrimSpace(s))
	if err != nil {
		a, aerr := netip.ParseAddr(strings.TrimSpace(s))
		if aerr != nil {
			d.errs.add(f, "Invalid IP address format: "+s)
			return
		}
		p = netip.PrefixFrom(a, a.BitLen())
	}
	*dst = p
}

// ref reads a related object written as a UUID, a URL, a composite key, a
// nested {"id"|"url"} or a dict of attributes. limit is the content type
// the target must allow (statuses, roles and tags), or "".
func (d *decoder) ref(f, target string, dst *string, required, nullable bool, limit string) {
	v, ok := d.field(f, required)
	if !ok {
		return
	}
	if v == nil {
		if !nullable {
			d.errs.add(f, "This field may not be null.")
			return
		}
		*dst = ""
		return
	}
	r, msg := d.s.resolve(target, v, limit)
	if msg != "" {
		d.errs.add(f, msg)
		return
	}
	*dst = r.id
}

func (d *decoder) refList(f, target string, dst *[]string, limit string) {
	v, ok := d.field(f, false)
	if !ok {
		return
	}
	items, isList := v.([]any)
	if !isList {
		d.errs.add(f, `Expected a list of items but got type "`+pyType(v)+`".`)
		return
	}
	ids := make([]string, 0, len(items))
	for _, it := range items {
		r, msg := d.s.resolve(target, it, limit)
		if msg != "" {
			d.errs.add(f, msg)
			return
		}
		if !slices.Contains(ids, r.id) {
			ids = append(ids, r.id)
		}
	}
	*dst = ids
}

func (d *decoder) contentTypes(f string, dst *[]string, required bool, valid func(string) bool) {
	v, ok := d.field(f, required)
	if !ok {
		return
	}
	items, isList := v.([]any)
	if !isList {
		d.errs.add(f, `Expected a list of items but got type "`+pyType(v)+`".`)
		return
	}
	var out []string
	for _, it := range items {
		ct, _ := it.(string)
		if !strings.Contains(ct, ".") {
			d.errs.add(f, "Invalid value. Specify a content type as '<app_label>.<model_name>'.")
			return
		}
		if !valid(ct) {
			d.errs.add(f, "Invalid content type: "+ct)
			return
		}
		if !slices.Contains(out, ct) {
			out = append(out, ct)
		}
	}
	if len(out) == 0 && required {
		d.errs.add(f, "This list may not be empty.")
		return
	}
	sortContentTypes(out)
	*dst = out
}

func (d *decoder) anyValue(f string, dst *any) {
	if v, ok := d.field(f, false); ok {
		*dst = v
	}
}

// customFields reads custom_fields. Like Nautobot it drops keys no custom
// field defines for this content type (unless the server is strict),
// merges a partial update into the stored values, and fills defaults on
// create.
func (d *decoder) customFields(dst *map[string]any) {
	defs := d.s.customFields(d.ct)
	out := make(map[string]any, len(defs))
	for k, v := range *dst {
		out[k] = v
	}
	if v, ok := d.raw["custom_fields"]; ok && v != nil {
		in, isMap := v.(map[string]any)
		if !isMap {
			d.errs.add("custom_fields", `Expected a dictionary of items but got type "`+pyType(v)+`".`)
			return
		}
		for k, v := range in {
			def := findCF(defs, k)
			if def == nil {
				if d.strictCF {
					d.errs.add("custom_fields", fmt.Sprintf("Unknown custom field key '%s'.", k))
				}
				continue
			}
			val, err := validateCF(def, v)
			if err != "" {
				d.errs.add("__all__", fmt.Sprintf("Invalid value for custom field '%s': %s", k, err))
				continue
			}
			out[k] = val
		}
	}
	if d.create {
		for _, def := range defs {
			if _, ok := out[def.name]; ok {
				continue
			}
			switch {
			case def.cfDefault != nil:
				out[def.name] = def.cfDefault
			case def.required:
				d.errs.add("__all__", fmt.Sprintf("Missing required custom field '%s'.", def.name))
			}
		}
	}
	*dst = out
}

func findCF(defs []*record, key string) *record {
	for _, d := range defs {
		if d.name == key {
			return d
		}
	}
	return nil
}

// validateCF checks a value as Nautobot's CustomField.validate does for
// the types the emulator knows; other types take any value.
func validateCF(def *record, v any) (any, string) {
	if v == nil || v == "" {
		return v, ""
	}
	switch def.typ {
	case "text", "url", "markdown":
		if _, ok := v.(string); !ok {
			return nil, "Value must be a string"
		}
	case "integer":
		n, ok := asInt(v)
		if !ok {
			return nil, "Value must be an integer."
		}
		return n, ""
	case "boolean":
		if _, ok := v.(bool); !ok {
			return nil, "Value must be true or false."
		}
	}
	return v, ""
}

// pyType names a JSON value's type as Python does in DRF's messages.
func pyType(v any) string {
	switch v.(type) {
	case string:
		return "str"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	case bool:
		return "bool"
	case nil:
		return "NoneType"
	}
	return "int"
}
