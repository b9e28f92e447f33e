package drift

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ipsync/ipsync/internal/plural"
)

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report for a terminal.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Drift against %s at %s\n", r.Target, r.GeneratedAt.Format("2006-01-02 15:04:05 MST"))
	if rs := r.Ranges; rs != nil {
		fmt.Fprintf(&b, "\nRanges used %.0f%% or more: %d of %d\n", rs.Threshold*100, len(rs.Above), rs.Counted)
		for _, g := range rs.Above {
			fmt.Fprintf(&b, "  %s %s %s: %d of %d used (%s), %d free, %s, full: %s\n", g.Site, g.Kind, g.Range, g.Used, g.Size, g.Percent(), g.Free, g.Rate(), g.Forecast())
		}
	}
	for _, o := range r.Owners {
		fmt.Fprintf(&b, "\n%s: ", o.Name())
		switch {
		case o.Error != "":
			fmt.Fprintf(&b, "NOT CHECKED: %s\n", o.Error)
			continue
		case len(o.Items) == 0 && len(o.Leaks) == 0:
			b.WriteString("in agreement\n")
			continue
		}
		fmt.Fprintf(&b, "%s drift, %s\n", plural.Of(len(o.Items), "object"), plural.Of(len(o.Leaks), "leak"))
		for _, it := range o.Items {
			fmt.Fprintf(&b, "  %-9s %s %s", it.Drift, it.Kind, it.Key)
			if it.Reason != "" {
				fmt.Fprintf(&b, "  (%s)", it.Reason)
			}
			b.WriteString("\n")
			if it.Drift == "different" || it.Drift == "unmarked" || it.Drift == "foreign" {
				for _, f := range it.Fields {
					fmt.Fprintf(&b, "      %s: %q -> %q\n", f.Field, f.Old, f.New)
				}
			}
		}
		for _, l := range o.Leaks {
			fmt.Fprintf(&b, "  leak      %s %s: %s\n", l.Kind, l.Key, l.Message)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
