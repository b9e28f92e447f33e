package resource

import (
	"fmt"
)

// Key is an object's natural key: what identifies it on every side, whatever
// ids the sides give it. Name is unique within Kind.
type Key struct {
	Kind Kind   `json:"kind"`
	Name string `json:"key"`
}

func (k Key) String() string { return string(k.Kind) + " " + k.Name }

// Source locates where an object was declared, for errors a user can act on.
type Source struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

func (s Source) String() string {
	if s.File == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", s.File, s.Line, s.Col)
}

// Meta is what every object carries besides its own fields.
type Meta struct {
	// Owner is the owner marker the object carries (current side) or will
	// carry (desired side).
	Owner Owner `json:"owner,omitempty"`
	// ID is the target's identifier of the object; set on the current side.
	ID string `json:"id,omitempty"`
	// Version is the target's change stamp (e.g. last_updated) used to
	// refuse a saved plan whose objects moved since it was made.
	Version string `json:"version,omitempty"`
	// Source is the spec location of a desired object.
	Source Source `json:"source,omitzero"`
}

// FieldDiff is one field's change from Old (current) to New (desired).
type FieldDiff struct {
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// Reference is a field that names another object. Kind is one of the
// resource kinds, or a kind the target owns (see Location and friends).
type Reference struct {
	Field string `json:"field"`
	Kind  Kind   `json:"kind"`
	Name  string `json:"name"`
}

// Kinds owned by the target (Nautobot); ipsync only refers to them.
const (
	RefLocation Kind = "location"
	RefStatus   Kind = "status"
	RefRole     Kind = "role"
	RefTenant   Kind = "tenant"
	RefTag      Kind = "tag"
)

// Object is one VLAN group, VLAN, prefix, ... of any kind.
type Object interface {
	Kind() Kind
	Key() Key
	// Identity is Key in a form that is cheap to compare and hash.
	Identity() Identity
	Meta() *Meta
	// Diff compares the receiver (desired) with current, which must be of the
	// same kind, and returns the fields that differ; nil when equal. Marker
	// fields (owner, id, version, source) are not compared.
	Diff(current Object) []FieldDiff
	// References lists the non-empty fields that name other objects.
	References() []Reference
	// UniqueKeys lists the values the target keeps unique besides the
	// natural key (a VLAN's name in its group); nil for most kinds.
	UniqueKeys() []UniqueKey
}

// New returns an empty object of kind k, for decoding saved plans.
func New(k Kind) (Object, error) {
	switch k {
	case KindNamespace:
		return &Namespace{}, nil
	case KindVLANGroup:
		return &VLANGroup{}, nil
	case KindVLAN:
		return &VLAN{}, nil
	case KindPrefix:
		return &Prefix{}, nil
	case KindIPAddress:
		return &IPAddress{}, nil
	case KindSegmentRange:
		return &SegmentRange{}, nil
	case KindASN:
		return &ASN{}, nil
	case KindAddressScope:
		return &AddressScope{}, nil
	case KindSubnetPool:
		return &SubnetPool{}, nil
	}
	return nil, fmt.Errorf("unknown kind %q", k)
}

// differ collects field diffs; it allocates only when something differs, which
// keeps comparing a million unchanged objects cheap.
type differ []FieldDiff

func (d *differ) str(field, old, new string) {
	if old != new {
		*d = append(*d, FieldDiff{field, old, new})
	}
}

func (d *differ) set(field string, old, new []string) {
	if !SetEqual(old, new) {
		*d = append(*d, FieldDiff{field, SetString(old), SetString(new)})
	}
}

func (d *differ) num(field string, old, new uint64) {
	if old != new {
		*d = append(*d, FieldDiff{field, fmt.Sprint(old), fmt.Sprint(new)})
	}
}

func (d *differ) boolean(field string, old, new bool) {
	if old != new {
		*d = append(*d, FieldDiff{field, fmt.Sprint(old), fmt.Sprint(new)})
	}
}

// AppendReferences appends o's references, as References gives them, to
// dst: the reference check asks every object of a site for them, and a
// buffer it reuses spares a million allocations at a million objects.
func AppendReferences(dst []Reference, o Object) []Reference {
	if a, ok := o.(interface{ appendReferences([]Reference) []Reference }); ok {
		return a.appendReferences(dst)
	}
	return append(dst, o.References()...)
}

// refs collects references, skipping empty names.
type refs []Reference

func (r *refs) add(field string, kind Kind, name string) {
	if name != "" {
		*r = append(*r, Reference{field, kind, name})
	}
}

func (r *refs) tags(tags []string) {
	for _, t := range tags {
		r.add("tags", RefTag, t)
	}
}
