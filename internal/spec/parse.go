package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ipsync/ipsync/internal/resource"
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
	diags   Diagnostics
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
			p.diags = append(p.diags, syntaxError(file, err))
			p.unreadable = true
			break
		}
		p.document(&doc)
	}
	return &p.parsed
}

// syntaxError turns the parser's "yaml: line N: problem" into a diagnostic
// at that line; the parser gives no column.
func syntaxError(file string, err error) Diagnostic {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, tail, ok := strings.Cut(rest, ": "); ok {
			if l, err := strconv.Atoi(n); err == nil {
				line, msg = l, tail
			}
		}
	}
	return Diagnostic{File: file, Line: line, Col: 1, Message: "YAML syntax error: " + msg}
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
			strings.Join(p.kindNames(), ", "), describe(root)))
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
			p.diag(v, k.Value, fmt.Sprintf("must be a list of %s items, got %s", s.item, describe(v)))
		}
	}
}

func (p *fileParser) item(s *schema, n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		p.diag(n, s.list, fmt.Sprintf("each item must be a mapping of %s fields, got %s", s.item, describe(n)))
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
	case !r.keyFailed:
		p.partial = append(p.partial, o)
	}
}

func (p *fileParser) positions(r *record) []fieldPos {
	if cap(p.posBuf)-len(p.posBuf) < maxFields {
		p.posBuf = make([]fieldPos, 0, 64*maxFields)
	}
	start := len(p.posBuf)
	p.posBuf = r.positions(p.posBuf)
	return p.posBuf[start:len(p.posBuf):len(p.posBuf)]
}
