package spec

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/ipsync/ipsync/internal/yamlnode"

	"github.com/ipsync/ipsync/internal/resource"
)

// field is one key a list item may have.
type field struct {
	name     string
	required bool
}

// schema describes one kind's list items.
type schema struct {
	list   string // top-level key, e.g. "vlans"
	item   string // one item, for messages, e.g. "vlan"
	fields []field
	// key names the fields that make the natural key: an item whose key
	// fields decoded still counts as declared when other fields are wrong,
	// so one typo does not also break every reference to it.
	key    []string
	decode func(r *record) resource.Object
}

// maxFields bounds len(schema.fields), so a record can index fields in
// arrays instead of a map per item.
const maxFields = 16

func (s *schema) index(name string) int {
	for i, f := range s.fields {
		if f.name == name {
			return i
		}
	}
	return -1
}

func (s *schema) names() []string {
	out := make([]string, len(s.fields))
	for i, f := range s.fields {
		out[i] = f.name
	}
	return out
}

// record reads one list item, a mapping whose keys must come from its
// schema. Unknown and repeated keys are reported while indexing, and each
// getter reports a wrong value, so one item yields all of its problems.
type record struct {
	p    *fileParser
	s    *schema
	at   resource.Source // the item itself
	path string          // prefix of field names in messages, for nested mappings ("vlan.")
	keys [maxFields]*yaml.Node
	vals [maxFields]*yaml.Node
	bad  uint32 // bit i: field i was reported
	// merges counts the mappings merged into this item so far.
	merges      int
	mergeFailed bool
	// failed: something in the item was reported; keyFailed: a key field was.
	failed, keyFailed bool
}

// reset prepares r to read item m; records are reused across items because
// a spec may hold a hundred thousand of them.
func (r *record) reset(p *fileParser, s *schema, m *yaml.Node, path string) {
	*r = record{p: p, s: s, at: p.src(m), path: path}
	r.index(m, 0)
	for i, f := range s.fields {
		switch {
		case !f.required:
		case r.vals[i] == nil:
			r.fail(f.name, r.at, fmt.Sprintf("required field missing in this %s", s.item))
		case isNull(r.vals[i]):
			r.fail(f.name, r.p.src(r.vals[i]), "required field is empty")
		}
	}
}

// maxMergeDepth bounds merges of merges: an anchor may merge itself, which
// would otherwise never end. maxMerges bounds the mappings merged into one
// item, since aliases let a few lines fan out exponentially.
const (
	maxMergeDepth = 8
	maxMerges     = 64
)

// index records m's fields. Merge keys ("<<: *defaults") are honoured as
// YAML defines them: explicit keys win, then merged mappings in order.
// depth counts the merges that led to m.
func (r *record) index(m *yaml.Node, depth int) {
	if depth > 0 {
		if r.merges++; r.merges > maxMerges || depth > maxMergeDepth {
			if !r.mergeFailed {
				r.mergeFailed = true
				r.fail("<<", r.p.src(m), fmt.Sprintf("more than %d merges, or deeper than %d; does an anchor merge itself?", maxMerges, maxMergeDepth))
			}
			return
		}
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], deref(m.Content[i+1])
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			r.fail("", r.p.src(k), "a field name must be plain text")
			continue
		}
		j := r.s.index(k.Value)
		switch {
		case j < 0:
			r.fail(k.Value, r.p.src(k), fmt.Sprintf("unknown field %q in %s%s", k.Value, r.s.item, hint(k.Value, r.s.names())))
		case r.keys[j] != nil && depth == 0:
			r.fail(k.Value, r.p.src(k), fmt.Sprintf("field repeated; first set at line %d", r.keys[j].Line))
		case r.keys[j] == nil:
			r.keys[j], r.vals[j] = k, v
		}
	}
	for _, src := range merges {
		switch src.Kind {
		case yaml.MappingNode:
			r.index(src, depth+1)
		case yaml.SequenceNode:
			for _, e := range src.Content {
				if e = deref(e); e.Kind == yaml.MappingNode {
					r.index(e, depth+1)
				} else {
					r.fail("<<", r.p.src(e), "a merge list may hold only mappings")
				}
			}
		default:
			r.fail("<<", r.p.src(src), "a merge needs a mapping or a list of mappings")
		}
	}
}

// fail reports a problem with field (a name of r's schema, or any other
// text for keys that are not fields) at at.
func (r *record) fail(name string, at resource.Source, msg string) {
	r.failed = true
	if i := r.s.index(name); i >= 0 {
		r.bad |= 1 << i
		if slices.Contains(r.s.key, name) {
			r.keyFailed = true
		}
	}
	field := name
	if field != "" {
		field = r.path + field
	}
	r.p.diags = append(r.p.diags, diagAt(at, field, msg))
}

// failField reports a problem with a field's value, where the value is
// written, or at the item when the field is absent.
func (r *record) failField(name, msg string) {
	at := r.at
	if n := r.vals[r.s.index(name)]; n != nil {
		at = r.p.src(n)
	}
	r.fail(name, at, msg)
}

// val is the value of the field, nil when it is absent or null.
func (r *record) val(name string) *yaml.Node {
	n := r.vals[r.s.index(name)]
	if n == nil || isNull(n) {
		return nil
	}
	return n
}

// ok reports whether the field is present and was read without a problem.
func (r *record) ok(name string) bool { return r.val(name) != nil && !r.reported(name) }

// reported reports whether a problem with the field was reported.
func (r *record) reported(name string) bool { return r.bad&(1<<r.s.index(name)) != 0 }

func (r *record) required(name string) bool {
	i := r.s.index(name)
	return i >= 0 && r.s.fields[i].required
}

// str reads a text field. Numbers are taken as written (a VLAN may be
// named 100), but booleans, lists and mappings are errors: they are nearly
// always a slip.
func (r *record) str(name string) string {
	n := r.val(name)
	if n == nil {
		return ""
	}
	s, ok := r.text(name, n)
	if ok && s == "" && r.required(name) {
		r.failField(name, "must not be empty")
	}
	return s
}

// strOr is str with a default for an absent or empty field.
func (r *record) strOr(name, def string) string {
	if s := r.str(name); s != "" {
		return s
	}
	return def
}

func (r *record) text(name string, n *yaml.Node) (string, bool) {
	if n.Kind == yaml.ScalarNode {
		switch tag := n.ShortTag(); tag {
		case "!!str", "!!int", "!!float", "!!timestamp":
			return n.Value, true
		case "!!bool":
			r.fail(name, r.p.src(n), fmt.Sprintf("must be text, got boolean %s; quote it if you mean the word", n.Value))
			return "", false
		}
	}
	r.fail(name, r.p.src(n), "must be text, got "+yamlnode.Describe(n))
	return "", false
}

// num reads a non-negative integer field that must lie in lo-hi; 0 when it
// is absent or wrong.
func (r *record) num(name string, lo, hi uint64) uint64 {
	n := r.val(name)
	if n == nil {
		return 0
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		msg := "must be an integer, got " + yamlnode.Describe(n)
		if _, err := parseUint(n.Value); err == nil && n.Kind == yaml.ScalarNode {
			msg += "; remove the quotes"
		}
		r.failField(name, msg)
		return 0
	}
	v, err := parseUint(n.Value)
	if err != nil || v < lo || v > hi {
		r.failField(name, fmt.Sprintf("%s is outside %d-%d", n.Value, lo, hi))
		return 0
	}
	return v
}

// parseUint reads an integer the way YAML writes them (0x, 0o, 0b, _).
func parseUint(s string) (uint64, error) {
	return strconv.ParseUint(strings.ReplaceAll(strings.TrimPrefix(s, "+"), "_", ""), 0, 64)
}

// boolean reads a true/false field, def when absent.
func (r *record) boolean(name string, def bool) bool {
	n := r.val(name)
	if n == nil {
		return def
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		r.failField(name, "must be true or false, got "+yamlnode.Describe(n))
		return def
	}
	return strings.EqualFold(n.Value, "true")
}

// set reads a list of text as a set (sorted, without repeats).
func (r *record) set(name string) []string {
	n := r.val(name)
	if n == nil {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		r.failField(name, "must be a list of text, got "+yamlnode.Describe(n))
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for _, e := range n.Content {
		e = deref(e)
		s, ok := r.text(name, e)
		switch {
		case !ok:
		case s == "":
			r.fail(name, r.p.src(e), "list items must not be empty")
		default:
			out = append(out, s)
		}
	}
	return resource.NormalizeSet(out)
}

// oneOf reads a field whose value must be one of allowed.
func (r *record) oneOf(name, def string, allowed ...string) string {
	s := r.str(name)
	if !r.ok(name) {
		return def
	}
	if slices.Contains(allowed, s) {
		return s
	}
	r.failField(name, fmt.Sprintf("%q is not one of %s%s", s, strings.Join(allowed, ", "), didYouMean(s, allowed)))
	return ""
}

func didYouMean(s string, candidates []string) string {
	if c := suggest(s, candidates); c != "" {
		return fmt.Sprintf("; did you mean %q?", c)
	}
	return ""
}

// network reads a CIDR whose host bits must be zero.
func (r *record) network(name string) netip.Prefix {
	s := r.str(name)
	if !r.ok(name) {
		return netip.Prefix{}
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		r.failField(name, fmt.Sprintf("invalid CIDR %q: %s", s, parseErr(err, s)))
		return netip.Prefix{}
	}
	if m := p.Masked(); m != p {
		r.failField(name, fmt.Sprintf("%s: host bits set, did you mean %s", s, m))
		return netip.Prefix{}
	}
	return p
}

// host reads an address with the mask of its subnet ("10.0.0.5/24").
func (r *record) host(name string) netip.Prefix {
	s := r.str(name)
	if !r.ok(name) {
		return netip.Prefix{}
	}
	p, err := netip.ParsePrefix(s)
	if err == nil {
		return p
	}
	if a, aerr := netip.ParseAddr(s); aerr == nil {
		example := 24
		if a.Is6() {
			example = 64
		}
		r.failField(name, fmt.Sprintf("%s needs the mask length of its subnet, like %s/%d", s, a, example))
	} else {
		r.failField(name, fmt.Sprintf("invalid address %q: %s", s, parseErr(err, s)))
	}
	return netip.Prefix{}
}

// parseErr drops netip's echo of the input, which the message already has.
func parseErr(err error, s string) string {
	return strings.TrimPrefix(err.Error(), fmt.Sprintf("netip.ParsePrefix(%q): ", s))
}

// vlanRef reads a reference to a VLAN, "<vlan_group>/<vid>" or
// {vlan_group: ..., vid: ...}, as the VLAN's key.
func (r *record) vlanRef(name string) string {
	n := r.val(name)
	if n == nil {
		return ""
	}
	if n.Kind == yaml.MappingNode {
		var sub record
		sub.reset(r.p, vlanRefSchema(), n, r.path+name+".")
		group, vid := sub.str("vlan_group"), sub.num("vid", resource.MinVID, resource.MaxVID)
		if sub.failed {
			r.failed = true
			r.bad |= 1 << r.s.index(name)
			return ""
		}
		return resource.VLANKey(group, uint16(vid))
	}
	s, ok := r.text(name, n)
	if !ok {
		return ""
	}
	i := strings.LastIndexByte(s, '/')
	if i <= 0 {
		r.failField(name, fmt.Sprintf("%q is not a VLAN reference; write <vlan_group>/<vid> or {vlan_group: ..., vid: ...}", s))
		return ""
	}
	vid, err := strconv.Atoi(s[i+1:])
	if err != nil || vid < resource.MinVID || vid > resource.MaxVID {
		r.failField(name, fmt.Sprintf("%q: vid %q is not a number in %d-%d", s, s[i+1:], resource.MinVID, resource.MaxVID))
		return ""
	}
	return resource.VLANKey(s[:i], uint16(vid))
}

func vlanRefSchema() *schema {
	return &schema{item: "vlan reference", fields: []field{{"vlan_group", true}, {"vid", true}}}
}

// positions lists where each present field's value is written, for
// problems Validate finds later.
func (r *record) positions(buf []fieldPos) []fieldPos {
	for i, n := range r.vals {
		if n != nil {
			buf = append(buf, fieldPos{name: r.s.fields[i].name, line: int32(n.Line), col: int32(n.Column)})
		}
	}
	return buf
}

// deref follows aliases to the node they name.
func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }
