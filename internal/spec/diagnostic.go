package spec

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ipsync/ipsync/internal/resource"
)

// Diagnostic is one problem found in a spec, located for the user.
type Diagnostic struct {
	File    string
	Line    int
	Col     int
	Field   string
	Message string
}

// String is "file:line:col: field: message", the form editors and CI logs
// turn into links; "field: " is left out when no one field is to blame.
func (d Diagnostic) String() string {
	if d.Field == "" {
		return fmt.Sprintf("%s:%d:%d: %s", d.File, d.Line, d.Col, d.Message)
	}
	return fmt.Sprintf("%s:%d:%d: %s: %s", d.File, d.Line, d.Col, d.Field, d.Message)
}

// Diagnostics is every problem found, sorted by file, line and column.
type Diagnostics []Diagnostic

// Error lists the diagnostics one per line, so a Diagnostics can be returned
// where an error is expected without losing any of them.
func (ds Diagnostics) Error() string {
	lines := make([]string, len(ds))
	for i, d := range ds {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// sorted orders by place (then field and message, for a stable output) and
// drops repeats: a field of a merged anchor is read once per item that
// merges it.
func (ds Diagnostics) sorted() Diagnostics {
	slices.SortFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col),
			cmp.Compare(a.Field, b.Field), cmp.Compare(a.Message, b.Message))
	})
	return slices.Compact(ds)
}

func diagAt(at resource.Source, field, msg string) Diagnostic {
	return Diagnostic{File: at.File, Line: at.Line, Col: at.Col, Field: field, Message: msg}
}
