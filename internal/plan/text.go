package plan

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ipsync/ipsync/internal/plural"
)

// WriteText renders p for a person: counts per kind and action, the reasons
// the plan would be refused, then each change with its field diffs.
func (p *Plan) WriteText(w io.Writer) error { return p.writeText(w, true) }

// WriteSummary is WriteText without the changes, for plans too long to
// read through: the counts, refusals and leaks, and how many changes were
// left out.
func (p *Plan) WriteSummary(w io.Writer) error { return p.writeText(w, false) }

func (p *Plan) writeText(w io.Writer, details bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Plan for owner %s (mode %s", p.Policy.Owner, p.Policy.Mode)
	if p.Policy.Adopt {
		b.WriteString(", adopt")
	}
	fmt.Fprintf(&b, "), %s currently owned\n\n", plural.Of(p.Owned, "object"))

	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\tcreate\tupdate\tadopt\tdelete\tconflict\tnoop\tskip\t")
	rows := p.Summary.Rows()
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", r.Kind, r.Create, r.Update, r.Adopt, r.Delete, r.Conflict, r.Noop, r.Skip)
	}
	t := total(rows)
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", t.Create, t.Update, t.Adopt, t.Delete, t.Conflict, t.Noop, t.Skip)
	if err := tw.Flush(); err != nil {
		return err
	}

	if len(p.Refusals) > 0 {
		b.WriteString("\nThis plan will not be applied:\n")
		for _, r := range p.Refusals {
			fmt.Fprintf(&b, "  ! %s\n", r)
		}
	}
	if len(p.Leaks) > 0 {
		b.WriteString("\nLeaks (reported, not synced):\n")
		for _, l := range p.Leaks {
			fmt.Fprintf(&b, "  ? %s %s: %s\n", l.Kind, l.Key, l.Message)
		}
	}
	switch {
	case len(p.Changes) == 0:
		b.WriteString("\nNo changes: the target matches.\n")
	case !details:
		fmt.Fprintf(&b, "\n%s not listed (the summary only).\n", plural.Of(len(p.Changes), "change"))
		_, err := io.WriteString(w, b.String())
		return err
	default:
		b.WriteString("\n")
	}
	for _, c := range p.Changes {
		fmt.Fprintf(&b, "%c %s %s %s\n", c.Action, c.Action, c.Key.Kind, c.Key.Name)
		if c.Reason != "" {
			fmt.Fprintf(&b, "    # %s\n", c.Reason)
		}
		for _, f := range c.Fields {
			switch c.Action {
			case Create:
				fmt.Fprintf(&b, "    %s: %q\n", f.Field, f.New)
			case Delete:
				fmt.Fprintf(&b, "    %s: %q\n", f.Field, f.Old)
			default:
				fmt.Fprintf(&b, "    %s: %q -> %q\n", f.Field, f.Old, f.New)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
