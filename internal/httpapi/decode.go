package httpapi

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"hash/maphash"
	"reflect"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Decoder decodes servers' answers as encoding/json's Unmarshal would, at
// a fraction of its cost: decoding a page of 1,000 IP addresses took
// longer than planning them.
//
// It uses the encoding/json/v2 API, from the module the standard
// library's copy grew out of, so that no build needs an experiment flag.
// What repeats from object to object is decoded once and shared: strings
// (the id of a status, role, tenant, tag or parent that a page's objects
// share, an owner, a timestamp of a bulk write), sets of custom fields,
// and the related objects of the types given to NewDecoder. That saves
// most of the allocations, and the planner compares shared strings by
// pointer. (A type that holds none of these but strings is left to v2's
// own cache of strings, which costs less.) The shared maps and pointers are read, never written: a
// decoded value is the server's answer, not a place to build on.
type Decoder struct {
	shared []Shared
	pool   sync.Pool
	plain  sync.Map // reflect.Type -> bool: whether it decodes with v1Rules alone
}

// Shared is a type whose decoded values a Decoder shares; see Share.
type Shared struct {
	t            reflect.Type
	unmarshalers func(*decoder) *json.Unmarshalers
}

// Share shares the values of T decoded from the same JSON text: a *T is
// one pointer for all of them, a T a copy of one decoded value. It is for
// small wire types that stand for a related object, which every object
// of a page repeats with its links and names, of which ipsync reads the
// id alone.
func Share[T any]() Shared {
	return Shared{reflect.TypeFor[T](), func(d *decoder) *json.Unmarshalers {
		var seen [1 << 8]struct {
			raw string
			p   *T
		}
		find := func(v jsontext.Value) (*T, error) {
			s := &seen[maphash.Bytes(d.seed, v)%uint64(len(seen))]
			if s.p == nil || s.raw != string(v) {
				p := new(T)
				if err := json.Unmarshal(v, p, d.inner); err != nil {
					return nil, err
				}
				s.raw, s.p = string(v), p
			}
			return s.p, nil
		}
		return json.JoinUnmarshalers(
			json.UnmarshalFromFunc(func(dec *jsontext.Decoder, pp **T) error {
				v, err := dec.ReadValue()
				switch {
				case err != nil:
					return err
				case v.Kind() == 'n':
					*pp = nil
					return nil
				case *pp != nil || len(v) > maxShared:
					return json.Unmarshal(v, pp, d.inner) // into the value given, as encoding/json does
				}
				p, err := find(v)
				if err == nil {
					*pp = p
				}
				return err
			}),
			json.UnmarshalFromFunc(func(dec *jsontext.Decoder, t *T) error {
				v, err := dec.ReadValue()
				switch {
				case err != nil:
					return err
				case v.Kind() != '{' || len(v) > maxShared || !reflect.ValueOf(t).Elem().IsZero():
					return json.Unmarshal(v, t, d.inner) // into the value given, as encoding/json does
				}
				p, err := find(v)
				if err == nil {
					*t = *p
				}
				return err
			}),
		)
	}}
}

// NewDecoder returns a Decoder that also shares the types given.
func NewDecoder(shared ...Shared) *Decoder {
	d := &Decoder{shared: shared}
	d.pool.New = func() any { return d.newDecoder() }
	return d
}

// Decode decodes b into v.
func (d *Decoder) Decode(b []byte, v any) error {
	if d.isPlain(reflect.TypeOf(v)) {
		// Its own string cache shares strings well enough where an
		// object has few strings of its own; the functions below cost
		// it a fifth more time, as it then looks each value's type up.
		return json.Unmarshal(b, v, v1Rules)
	}
	s := d.pool.Get().(*decoder)
	defer d.pool.Put(s)
	return json.Unmarshal(b, v, s.opts)
}

// isPlain reports whether values of t hold nothing the functions of a
// decoder are for: no encoding/json RawMessage or Number, no shared type.
func (d *Decoder) isPlain(t reflect.Type) bool {
	if p, ok := d.plain.Load(t); ok {
		return p.(bool)
	}
	special := map[reflect.Type]bool{reflect.TypeFor[stdjson.RawMessage](): true, reflect.TypeFor[stdjson.Number](): true}
	for _, s := range d.shared {
		special[s.t] = true
	}
	seen := map[reflect.Type]bool{}
	var holds func(reflect.Type) bool
	holds = func(t reflect.Type) bool {
		if special[t] {
			return true
		}
		if seen[t] {
			return false
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			return holds(t.Elem())
		case reflect.Map:
			return holds(t.Key()) || holds(t.Elem())
		case reflect.Struct:
			for f := range t.Fields() {
				if holds(f.Type) {
					return true
				}
			}
		}
		return false
	}
	p := !holds(t)
	d.plain.Store(t, p)
	return p
}

// decoder is the state of one decoding at a time: the tables of what was
// shared, pooled so that the pages of a list share with each other too,
// while memory stays bounded: a table is a fixed array, and the GC
// empties an idle pool.
type decoder struct {
	strings [1 << 12]string
	fields  [1 << 6]sharedFields
	seed    maphash.Seed
	opts    json.Options
	inner   json.Options // without the shared types, to decode one of them
}

// sharedFields is a set of custom fields as sent and as decoded.
type sharedFields struct {
	raw string
	m   map[string]stdjson.RawMessage
}

// v1Rules are encoding/json's rules for what a server may send, where v2
// differs by default: member names matched without regard to case (but
// not to '_' and '-'), a repeated member's last value kept, invalid UTF-8
// replaced rather than refused, an array of another length than a Go
// array's taken, a value decoded into one already set merged as
// encoding/json merges. Unknown members are ignored by both. The module's
// whole set of v1 options (jsonv1.DefaultOptionsV1) is a third slower;
// what else it changes (marshaling, ",string" tags, error types) the wire
// types do not use, and the tests of both adapters hold this set to
// encoding/json's results.
var v1Rules = json.JoinOptions(
	json.MatchCaseInsensitiveNames(true),
	jsonv1.MatchCaseSensitiveDelimiter(true),
	jsontext.AllowDuplicateNames(true),
	jsontext.AllowInvalidUTF8(true),
	jsonv1.UnmarshalArrayFromAnyLength(true),
	jsonv1.MergeWithLegacySemantics(true),
)

// maxShared is the longest string or related object shared: ids, names,
// timestamps, addresses and references are shorter; a long text rarely
// repeats.
const maxShared = 256

func (d *Decoder) newDecoder() *decoder {
	s := &decoder{seed: maphash.MakeSeed()}
	own := json.JoinUnmarshalers(
		json.UnmarshalFromFunc(s.unmarshalString),
		json.UnmarshalFromFunc(unmarshalRaw),
		json.UnmarshalFromFunc(unmarshalNumber),
	)
	s.inner = json.JoinOptions(v1Rules, json.WithUnmarshalers(own))
	all := []*json.Unmarshalers{own, json.UnmarshalFromFunc(s.unmarshalFields)}
	for _, t := range d.shared {
		all = append(all, t.unmarshalers(s))
	}
	s.opts = json.JoinOptions(v1Rules, json.WithUnmarshalers(json.JoinUnmarshalers(all...)))
	return s
}

// maxSharedFields is the longest set of custom fields shared.
const maxSharedFields = 512

// unmarshalFields reads a set of custom fields, sharing the map among
// objects that were sent the same set: the objects of a site mostly
// carry the same owner and leave the other fields empty, and a map for
// each of them was a third of the time a page took to decode. The maps
// are only read (for the owner marker and the VNI), never written.
func (d *decoder) unmarshalFields(dec *jsontext.Decoder, m *map[string]stdjson.RawMessage) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if *m != nil || v.Kind() != '{' || len(v) > maxSharedFields {
		return json.Unmarshal(v, m, d.inner) // merge into a map given, as encoding/json does
	}
	slot := &d.fields[maphash.Bytes(d.seed, v)%uint64(len(d.fields))]
	if slot.m == nil || slot.raw != string(v) {
		var fresh map[string]stdjson.RawMessage
		if err := json.Unmarshal(v, &fresh, d.inner); err != nil {
			return err
		}
		*slot = sharedFields{raw: string(v), m: fresh}
	}
	*m = slot.m
	return nil
}

// unmarshalString reads a string through the table: a string seen
// recently in the same slot is returned instead of a new one. The table
// is direct-mapped, so a string that repeats survives many that do not.
func (d *decoder) unmarshalString(dec *jsontext.Decoder, s *string) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	switch v.Kind() {
	case 'n':
		return nil // encoding/json leaves the string as it was
	case '"':
	default:
		return fmt.Errorf("json: cannot unmarshal %s into a Go value of type string", kindName(v.Kind()))
	}
	raw := []byte(v[1 : len(v)-1])
	if bytes.IndexByte(raw, '\\') >= 0 || !utf8.Valid(raw) {
		// The value was checked when read, so the only error left is
		// invalid UTF-8, which encoding/json also replaces.
		raw, _ = jsontext.AppendUnquote(nil, v)
	}
	if len(raw) > maxShared {
		*s = string(raw)
		return nil
	}
	slot := &d.strings[maphash.Bytes(d.seed, raw)%uint64(len(d.strings))]
	if *slot != string(raw) {
		*slot = string(raw)
	}
	*s = *slot
	return nil
}

// unmarshalRaw keeps a RawMessage as encoding/json does, without its
// method call and the copy of the value it makes first.
func unmarshalRaw(dec *jsontext.Decoder, m *stdjson.RawMessage) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	*m = append((*m)[:0], v...)
	return nil
}

func kindName(k jsontext.Kind) string {
	switch k {
	case '0':
		return "number"
	case 't', 'f':
		return "bool"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return k.String()
}

// unmarshalNumber reads an encoding/json Number, which v2 knows only in
// its own package's form: a JSON number, or a string holding one, as
// encoding/json accepts.
func unmarshalNumber(dec *jsontext.Decoder, n *stdjson.Number) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	switch v.Kind() {
	case '0':
		*n = stdjson.Number(v)
		return nil
	case 'n':
		return nil
	case '"':
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return err
		}
		if !isNumber(s) {
			return fmt.Errorf("json: invalid number literal, trying to unmarshal %s into Number", v)
		}
		*n = stdjson.Number(s)
		return nil
	}
	return fmt.Errorf("json: cannot unmarshal %s into Number", v)
}

// isNumber reports whether s is a JSON number, as encoding/json's
// check for a Number given as a string does.
func isNumber(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' {
		s = s[1:]
		if s == "" {
			return false
		}
	}
	switch {
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		for s = s[1:]; s != "" && isDigit(s[0]); s = s[1:] {
		}
	default:
		return false
	}
	if len(s) >= 2 && s[0] == '.' && isDigit(s[1]) {
		for s = s[2:]; s != "" && isDigit(s[0]); s = s[1:] {
		}
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
			if s == "" {
				return false
			}
		}
		for ; s != "" && isDigit(s[0]); s = s[1:] {
		}
	}
	return s == ""
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
