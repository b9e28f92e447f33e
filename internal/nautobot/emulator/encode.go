package emulator

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jw appends JSON to a byte slice. Responses are built field by field in
// Nautobot's order, without reflection, which matters when a page holds a
// thousand objects.
type jw struct {
	b     []byte
	comma []bool
	inKey bool
}

func (w *jw) sep() {
	if w.inKey {
		w.inKey = false
		return
	}
	if n := len(w.comma); n > 0 {
		if w.comma[n-1] {
			w.b = append(w.b, ',')
		}
		w.comma[n-1] = true
	}
}

func (w *jw) open(c byte) {
	w.sep()
	w.b = append(w.b, c)
	w.comma = append(w.comma, false)
}

func (w *jw) close(c byte) {
	w.b = append(w.b, c)
	w.comma = w.comma[:len(w.comma)-1]
}

func (w *jw) key(k string) {
	w.sep()
	w.b = appendQuoted(w.b, k)
	w.b = append(w.b, ':')
	w.inKey = true
}

func (w *jw) str(s string)   { w.sep(); w.b = appendQuoted(w.b, s) }
func (w *jw) int(n int64)    { w.sep(); w.b = strconv.AppendInt(w.b, n, 10) }
func (w *jw) null()          { w.sep(); w.b = append(w.b, "null"...) }
func (w *jw) boolean(v bool) { w.sep(); w.b = strconv.AppendBool(w.b, v) }

func (w *jw) value(v any) {
	raw, err := json.Marshal(v)
	if err != nil {
		raw = []byte("null")
	}
	w.sep()
	w.b = append(w.b, raw...)
}

func (w *jw) strOrNull(s string) {
	if s == "" {
		w.null()
		return
	}
	w.str(s)
}

func appendQuoted(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
			i++
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			i++
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
		}
	}
	return append(b, '"')
}

// encoder renders records as Nautobot does at depth 0.
type encoder struct {
	w          jw
	s          *store
	base       string // scheme://host of the request
	legacy     bool   // API 2.0/2.1: one location instead of locations
	excludeM2M bool   // Nautobot 3.x default: many-to-many fields left out
	write      bool   // the answer to a write
}

func (e *encoder) url(ct, id string) string {
	return e.base + "/api/" + e.s.tables[ct].def.path + "/" + id + "/"
}

func (e *encoder) ref(field, ct, id string) {
	e.w.key(field)
	if id == "" {
		e.w.null()
		return
	}
	e.refValue(ct, id)
}

func (e *encoder) refValue(ct, id string) {
	e.w.open('{')
	e.w.key("id")
	e.w.str(id)
	e.w.key("object_type")
	e.w.str(ct)
	e.w.key("url")
	e.w.str(e.url(ct, id))
	e.w.close('}')
}

func (e *encoder) refs(field, ct string, ids []string) {
	e.w.key(field)
	e.w.open('[')
	for _, id := range ids {
		if e.s.get(ct, id) != nil {
			e.refValue(ct, id)
		}
	}
	e.w.close(']')
}

func (e *encoder) field(k, v string) {
	e.w.key(k)
	e.w.str(v)
}

// record writes one object: the common leading fields, the kind's own,
// then the common trailing ones.
func (e *encoder) record(r *record) {
	def := e.s.tables[r.ct].def
	display := def.display(e.s, r)
	e.w.open('{')
	e.field("id", r.id)
	e.field("object_type", r.ct)
	e.field("display", display)
	e.field("url", e.url(r.ct, r.id))
	e.field("natural_slug", naturalSlug(display, r.id))
	def.encode(e, r)
	e.w.key("created")
	e.w.str(r.created.Format(timeFormat))
	e.w.key("last_updated")
	e.w.str(r.updated.Format(timeFormat))
	e.w.key("notes_url")
	e.w.str(e.url(r.ct, r.id) + "notes/")
	e.w.close('}')
}

// tagsAndCF writes the tags and custom fields of kinds that have them.
func (e *encoder) tagsAndCF(r *record) {
	e.refs("tags", ctTag, r.tags)
	e.w.key("custom_fields")
	e.w.open('{')
	for _, cf := range e.s.customFields(r.ct) {
		e.w.key(cf.name)
		e.w.value(r.cf[cf.name])
	}
	e.w.close('}')
}

// timeFormat is how DRF renders datetimes.
const timeFormat = "2006-01-02T15:04:05.000000Z"

func naturalSlug(display, id string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(display) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteRune(c)
		default:
			b.WriteByte('-')
		}
	}
	if len(id) >= 4 {
		b.WriteString("_" + id[:4])
	}
	return b.String()
}
