package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/yamlnode"
)

// fieldPos is where one field's value is written.
type fieldPos struct {
	name      string
	line, col int32
}

// parsed is what one file yields.
type parsed struct {
	objs []resource.Object
	// fields[i] locates the fields of objs[i].
	fields [][]fieldPos
	// partial are items with problems whose natural key still decoded;
	// they count as declared for references, and for nothing else.
	partial []resource.Object
	// broken are all items with problems, so that the references their
	// sound fields make are still checked: one wrong field must not hide
	// another.
	broken []brokenItem
	diags  Diagnostics
	// unreadable: a YAML syntax error hid the rest of the file.
	unreadable bool
}

// Parse decodes one spec file and checks what can be judged from each list
// item alone: syntax, unknown or repeated fields, types, required fields,
// value formats and bounds. Objects with problems are left out.
func Parse(file string, data []byte, owner resource.Owner) ([]resource.Object, Diagnostics) {
	p := parseFile(file, data, owner, schemas())
	return p.objs, p.diags.sorted()
}

func parseFile(file string, data []byte, owner resource.Owner, kinds []*schema) *parsed {
	p := &fileParser{file: file, owner: owner, kinds: kinds}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			p.diags = append(p.diags, syntaxError(file, data, err))
			p.unreadable = true
			break
		}
		p.document(&doc)
	}
	return &p.parsed
}

// syntaxError locates a YAML syntax error where the fix goes. The parser
// notices some errors late: an unclosed quote or flow collection only at the
// end of the file or of the next line; those are reported where the quote
// or bracket opens. The field is the key written on that line, if any.
func syntaxError(file string, data []byte, err error) Diagnostic {
	le, ok := errors.AsType[*yaml.LoadError](err)
	if !ok {
		return Diagnostic{File: file, Line: 1, Col: 1, Message: "YAML syntax error: " + err.Error()}
	}
	at, msg := le.Mark, le.Message
	if strings.Contains(msg, "mapping values are not allowed") {
		msg += `; a value containing ": " must be quoted`
	}
	if le.ContextMsg != "" && le.ContextMark.Line > 0 {
		var opened string
		switch {
		case strings.Contains(le.ContextMsg, "quoted scalar"):
			opened = "the quoted text that starts here"
		case strings.Contains(le.ContextMsg, "flow mapping"):
			opened = "the { that opens here"
		case strings.Contains(le.ContextMsg, "flow sequence"):
			opened = "the [ that opens here"
		}
		switch {
		case opened != "":
			msg = fmt.Sprintf("%s is never closed (%s at line %d)", opened, msg, le.Mark.Line)
			at = le.ContextMark
		default:
			msg = fmt.Sprintf("%s (%s that starts at line %d)", msg, le.ContextMsg, le.ContextMark.Line)
		}
	}
	line, col := max(at.Line, 1), max(at.Column, 1)
	return Diagnostic{File: file, Line: line, Col: col, Field: keyAt(data, line, col), Message: "YAML syntax error: " + msg}
}

// keyAt is the mapping key written on line (1-based) before col, or after
// it when none is before; "" at a bracket, which opens no one field.
func keyAt(data []byte, line, col int) string {
	lines := bytes.Split(data, []byte("\n"))
	if line > len(lines) {
		return ""
	}
	text := string(lines[line-1])
	keys := keyPattern.FindAllStringSubmatchIndex(text, -1)
	before := ""
	for _, k := range keys {
		if k[2] < col-1 {
			before = text[k[2]:k[3]]
		}
	}
	switch {
	case before != "":
		return before
	case col-1 < len(text) && strings.ContainsRune("{[", rune(text[col-1])):
		return ""
	case len(keys) > 0:
		return text[keys[0][2]:keys[0][3]]
	}
	return ""
}

// keyPattern finds "key:" in a line of YAML: a plain name followed by a
// colon and a space or the end of the line, where a key may start (the
// indent, after "- ", "{" or ","), not in the middle of a value.
var keyPattern = regexp.MustCompile(`(?:^\s*(?:-\s+)*|[{,]\s*)([A-Za-z_][A-Za-z0-9_-]*)\s*:(?:\s|$)`)

// brokenItem is an item with problems: what decoded of it, where its
// fields are, and which of them were reported.
type brokenItem struct {
	obj      resource.Object
	fields   []fieldPos
	reported []string
}

type fileParser struct {
	parsed
	file  string
	owner resource.Owner
	kinds []*schema
	rec   record
	// posBuf backs the fields slices, in chunks, to spare one allocation
	// per object.
	posBuf []fieldPos
}

func (p *fileParser) src(n *yaml.Node) resource.Source {
	return resource.Source{File: p.file, Line: n.Line, Col: n.Column}
}

func (p *fileParser) diag(n *yaml.Node, field, msg string) {
	p.diags = append(p.diags, diagAt(p.src(n), field, msg))
}

func (p *fileParser) kindNames() []string {
	out := make([]string, len(p.kinds))
	for i, s := range p.kinds {
		out[i] = s.list
	}
	return out
}

func (p *fileParser) schema(list string) *schema {
	for _, s := range p.kinds {
		if s.list == list {
			return s
		}
	}
	return nil
}

func (p *fileParser) document(doc *yaml.Node) {
	if len(doc.Content) == 0 {
		return
	}
	root := deref(doc.Content[0])
	if isNull(root) {
		return
	}
	if root.Kind != yaml.MappingNode {
		p.diag(root, "", fmt.Sprintf("a spec file is a mapping of kinds (%s) to lists, got %s",
			strings.Join(p.kindNames(), ", "), yamlnode.Describe(root)))
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], deref(root.Content[i+1])
		s := p.schema(k.Value)
		if k.Kind != yaml.ScalarNode || s == nil {
			p.diag(k, k.Value, fmt.Sprintf("unknown kind %q%s", k.Value, hint(k.Value, p.kindNames())))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			p.diag(k, k.Value, fmt.Sprintf("repeated in this document (first at line %d); YAML keeps only one, so merge the lists", first))
		}
		seen[k.Value] = k.Line
		switch {
		case isNull(v):
		case v.Kind == yaml.SequenceNode:
			for _, item := range v.Content {
				p.item(s, deref(item))
			}
		default:
			p.diag(v, k.Value, fmt.Sprintf("must be a list of %s items, got %s", s.item, yamlnode.Describe(v)))
		}
	}
}

func (p *fileParser) item(s *schema, n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		p.diag(n, s.list, fmt.Sprintf("each item must be a mapping of %s fields, got %s", s.item, yamlnode.Describe(n)))
		return
	}
	r := &p.rec
	r.reset(p, s, n, "")
	o := s.decode(r)
	m := o.Meta()
	m.Owner, m.Source = p.owner, r.at
	switch {
	case !r.failed:
		p.objs = append(p.objs, o)
		p.fields = append(p.fields, p.positions(r))
		return
	case !r.keyFailed:
		p.partial = append(p.partial, o)
	}
	b := brokenItem{obj: o, fields: r.positions(nil)}
	for i, f := range s.fields {
		if r.bad&(1<<i) != 0 {
			b.reported = append(b.reported, f.name)
		}
	}
	p.broken = append(p.broken, b)
}

func (p *fileParser) positions(r *record) []fieldPos {
	if cap(p.posBuf)-len(p.posBuf) < maxFields {
		p.posBuf = make([]fieldPos, 0, 64*maxFields)
	}
	start := len(p.posBuf)
	p.posBuf = r.positions(p.posBuf)
	return p.posBuf[start:len(p.posBuf):len(p.posBuf)]
}
