package emulator

import "strings"

func cfTypes() []choice {
	return []choice{{"text", "Text"}, {"integer", "Integer"}, {"boolean", "Boolean (true/false)"}, {"date", "Date"},
		{"datetime", "Date/time"}, {"url", "URL"}, {"select", "Selection"}, {"multi-select", "Multiple selection"},
		{"json", "JSON"}, {"markdown", "Markdown"}}
}

func cfFilterLogics() []choice {
	return []choice{{"disabled", "Disabled"}, {"loose", "Loose"}, {"exact", "Exact"}}
}

// validKey reports whether k can be a custom field key: lowercase
// letters, digits and underscores, starting with a letter.
func validKey(k string) bool {
	for i, c := range k {
		switch {
		case c >= 'a' && c <= 'z':
		case (c >= '0' && c <= '9' || c == '_') && i > 0:
		default:
			return false
		}
	}
	return k != ""
}

func customFieldKind() *kindDef {
	return &kindDef{
		ct: ctCustomField, path: "extras/custom-fields", model: "CustomField", label: "Custom field",
		uniqueField: "key", uniqueMsg: "custom field with this key already exists.",
		decode: func(d *decoder, r *record) {
			d.str("label", &r.label, true, false)
			d.str("key", &r.name, false, true)
			if r.name == "" && r.label != "" {
				r.name = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(r.label)), " ", "_")
			}
			d.choice("type", &r.typ, cfTypes(), true)
			d.contentTypes("content_types", &r.contentTypes, true, d.s.knownType)
			d.boolean("required", &r.required)
			d.anyValue("default", &r.cfDefault)
			d.choice("filter_logic", &r.filterLogic, cfFilterLogics(), false)
			d.str("description", &r.description, false, true)
			w := int64(r.weight)
			d.integer("weight", &w, false, 0, 32767)
			r.weight = int(w)
			if r.filterLogic == "" {
				r.filterLogic = "loose"
			}
			if d.create && !d.has("weight") {
				r.weight = 100
			}
		},
		check: func(_ *store, r, old *record) errorDict {
			e := errorDict{}
			if !validKey(r.name) {
				e.add("key", "Key must be a valid Python identifier: lowercase letters, digits and underscores, starting with a letter.")
			}
			if old != nil && old.typ != r.typ {
				e.add("type", "Type cannot be changed once created")
			}
			return e
		},
		encode: func(e *encoder, r *record) {
			e.field("key", r.name)
			e.field("label", r.label)
			e.w.key("type")
			choiceValue(e, cfTypes(), r.typ)
			e.w.key("content_types")
			e.w.open('[')
			for _, c := range r.contentTypes {
				e.w.str(c)
			}
			e.w.close(']')
			e.w.key("required")
			e.w.boolean(r.required)
			e.w.key("default")
			e.w.value(r.cfDefault)
			e.w.key("filter_logic")
			choiceValue(e, cfFilterLogics(), r.filterLogic)
			e.field("description", r.description)
			e.w.key("weight")
			e.w.int(int64(r.weight))
			e.field("grouping", "")
			e.w.key("advanced_ui")
			e.w.boolean(false)
			e.w.key("validation_minimum")
			e.w.null()
			e.w.key("validation_maximum")
			e.w.null()
			e.field("validation_regex", "")
		},
		display: func(_ *store, r *record) string { return r.label },
		less: func(_ *store, a, b *record) bool {
			if a.weight != b.weight {
				return a.weight < b.weight
			}
			return a.label < b.label
		},
		// CustomFieldFilterSet has no key (nor type) filter: with strict
		// filtering ?key= is a 400.
		filters: common(map[string]filterFunc{
			"label":         fExact(func(r *record) string { return r.label }),
			"content_types": fContentTypes((*store).knownType),
			"required":      fBool(func(r *record) bool { return r.required }),
			"filter_logic":  fExact(func(r *record) string { return r.filterLogic }),
			"weight":        fInt(func(r *record) int64 { return int64(r.weight) }),
			"q":             fSearch(func(r *record) []string { return []string{r.label, r.description} }),
		}),
	}
}

// choiceValue writes a ChoiceField as Nautobot renders it.
func choiceValue(e *encoder, choices []choice, v string) {
	if v == "" {
		e.w.null()
		return
	}
	e.w.open('{')
	e.field("value", v)
	e.field("label", labelOf(choices, v))
	e.w.close('}')
}
