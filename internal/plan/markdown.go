package plan

import (
	"fmt"
	"io"
	"strings"

	"github.com/ipsync/ipsync/internal/plural"
	"github.com/ipsync/ipsync/internal/resource"
)

// DefaultMarkdownBytes keeps a rendering under the 65,536 characters a
// GitHub comment takes, with room for what a CI job adds around it.
const DefaultMarkdownBytes = 60000

// Markdown shapes the rendering of a plan for a code-review page (a pull
// request's comment, a merge request's note).
type Markdown struct {
	// Target names where the plan was made (a URL), for the heading.
	Target string
	// MaxBytes bounds the rendering; changes past it are counted, not
	// shown. 0 is DefaultMarkdownBytes.
	MaxBytes int
	// PerKind bounds the changes shown of each kind, so that one kind's
	// thousands leave room for the others. 0 is 100.
	PerKind int
}

// foldAbove is how many changes a plan may have and still show them
// unfolded: past it, a reviewer reads the counts first and opens a kind.
const foldAbove = 25

// WriteMarkdown renders p for review: what it would do in one line, the
// refusals and leaks first, the summary per kind and action, the deletes
// and conflicts called out, then each kind's changes old -> new as a diff,
// folded and bounded so that a plan of 50,000 objects stays one readable
// page; and the fingerprint that names exactly these writes.
func (p *Plan) WriteMarkdown(w io.Writer, m Markdown) error {
	if m.MaxBytes <= 0 {
		m.MaxBytes = DefaultMarkdownBytes
	}
	if m.PerKind <= 0 {
		m.PerKind = 100
	}
	r := mdRender{p: p, m: m}
	r.head()
	r.refusals()
	r.leaks()
	r.table()
	r.deletes()
	r.conflicts()
	r.changes()
	r.foot()
	_, err := io.WriteString(w, r.b.String())
	return err
}

type mdRender struct {
	p *Plan
	m Markdown
	b strings.Builder
}

// footRoom is what the last lines need, kept free while changes are added.
const footRoom = 700

func (r *mdRender) head() {
	p := r.p
	fmt.Fprintf(&r.b, "### ipsync plan for `%s`\n\n", p.Policy.Owner)
	var parts []string
	for _, a := range []Action{Create, Update, Adopt, Delete} {
		if n := p.Summary.Total(a); n > 0 {
			parts = append(parts, fmt.Sprintf("%d to %s", n, a))
		}
	}
	what := "**nothing to write**"
	if len(parts) > 0 {
		what = "**" + strings.Join(parts, ", ") + "**"
	}
	if n := p.Summary.Total(Conflict); n > 0 {
		what += fmt.Sprintf(", **%s**", plural.Of(n, "conflict"))
	}
	mode := string(p.Policy.Mode)
	if p.Policy.Adopt {
		mode += ", adopt"
	}
	fmt.Fprintf(&r.b, "%s · mode %s · %s owned now", what, mode, plural.Of(p.Owned, "object"))
	if r.m.Target != "" {
		fmt.Fprintf(&r.b, " · against %s", mdText(r.m.Target))
	}
	r.b.WriteString("\n\n")
}

func (r *mdRender) refusals() {
	if len(r.p.Refusals) == 0 {
		return
	}
	r.b.WriteString("> [!CAUTION]\n> **Refused: applying this plan would write nothing.** Fix these first:\n>\n")
	for _, s := range r.p.Refusals {
		fmt.Fprintf(&r.b, "> - %s\n", mdText(s))
	}
	r.b.WriteString("\n")
}

func (r *mdRender) leaks() {
	leaks := r.p.Leaks
	if len(leaks) == 0 {
		return
	}
	fmt.Fprintf(&r.b, "**Leaks** (reported, never synced): %d\n\n", len(leaks))
	const shown = 20
	for i, l := range leaks {
		if i == shown {
			fmt.Fprintf(&r.b, "<details><summary>%d more leaks</summary>\n\n", len(leaks)-shown)
		}
		if i >= shown && r.full() {
			fmt.Fprintf(&r.b, "- … %d more\n", len(leaks)-i)
			break
		}
		fmt.Fprintf(&r.b, "- `%s` %s: %s\n", l.Kind, mdCode(l.Key), mdText(l.Message))
	}
	if len(leaks) > shown {
		r.b.WriteString("\n</details>\n")
	}
	r.b.WriteString("\n")
}

func (r *mdRender) table() {
	r.b.WriteString("| kind | create | update | adopt | delete | conflict | unchanged | skipped |\n|---|--:|--:|--:|--:|--:|--:|--:|\n")
	rows := r.p.Summary.Rows()
	for _, row := range rows {
		fmt.Fprintf(&r.b, "| %s | %d | %d | %d | %s | %s | %d | %d |\n", row.Kind, row.Create, row.Update, row.Adopt,
			bold(row.Delete), bold(row.Conflict), row.Noop, row.Skip)
	}
	t := total(rows)
	fmt.Fprintf(&r.b, "| **total** | %d | %d | %d | %s | %s | %d | %d |\n\n", t.Create, t.Update, t.Adopt,
		bold(t.Delete), bold(t.Conflict), t.Noop, t.Skip)
}

// bold marks a count a reviewer must not miss.
func bold(n int) string {
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("**%d**", n)
}

// deletes lists every delete's object, before the details, so that a
// reviewer sees what goes without opening anything.
func (r *mdRender) deletes() {
	var keys [][]string
	for _, c := range r.p.Changes {
		if c.Action == Delete {
			keys = append(keys, []string{fmt.Sprintf("- %s %s", c.Key.Kind, c.Key.Name)})
		}
	}
	if len(keys) == 0 {
		return
	}
	fmt.Fprintf(&r.b, "**%s** (objects this owner made that its data no longer holds):\n\n", plural.Of(len(keys), "delete"))
	r.diffBlock(len(keys) <= foldAbove, plural.Of(len(keys), "object")+" to delete", keys, len(keys), "more")
}

func (r *mdRender) conflicts() {
	var lines []string
	for _, c := range r.p.Changes {
		if c.Action != Conflict {
			continue
		}
		line := fmt.Sprintf("- %s %s", c.Key.Kind, mdCode(c.Key.Name))
		// The planner's reason names the owner already.
		if c.Current != nil && c.Reason == "" {
			if owner := c.Current.Meta().Owner; owner == "" {
				line += " (no ipsync marker)"
			} else {
				line += fmt.Sprintf(" (owned by %s)", mdText(string(owner)))
			}
		}
		if c.Reason != "" {
			line += ": " + mdText(c.Reason)
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(&r.b, "**%s**, objects this owner does not own in the way:\n\n", plural.Of(len(lines), "conflict"))
	shown := 0
	for _, l := range lines {
		if r.full() {
			break
		}
		r.b.WriteString(l + "\n")
		shown++
	}
	if shown < len(lines) {
		fmt.Fprintf(&r.b, "- … %d more not shown\n", len(lines)-shown)
	}
	r.b.WriteString("\n")
}

// changes shows each kind's writes as a diff: + what is created, - what is
// deleted, - old and + new of each updated field.
func (r *mdRender) changes() {
	writes := r.p.Writes()
	if writes == 0 {
		if len(r.p.Changes) == 0 {
			r.b.WriteString("No changes: the target matches.\n\n")
		}
		return
	}
	r.b.WriteString("#### Changes\n\n")
	byKind := map[resource.Kind][]Change{}
	var kinds []resource.Kind
	for _, c := range r.p.Changes {
		if !c.Action.Writes() {
			continue
		}
		if byKind[c.Key.Kind] == nil {
			kinds = append(kinds, c.Key.Kind)
		}
		byKind[c.Key.Kind] = append(byKind[c.Key.Kind], c)
	}
	open := writes <= foldAbove
	for _, k := range kinds {
		cs := byKind[k]
		counts := map[Action]int{}
		for _, c := range cs {
			counts[c.Action]++
		}
		var parts []string
		for _, a := range []Action{Create, Update, Adopt, Delete} {
			if counts[a] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", counts[a], a))
			}
		}
		summary := fmt.Sprintf("<b>%s</b>: %s", k, strings.Join(parts, ", "))
		groups := make([][]string, len(cs))
		for i, c := range cs {
			groups[i] = diffLines(c)
		}
		r.diffBlock(open, summary, groups, r.m.PerKind, fmt.Sprintf("more %s changes", k))
	}
}

func (r *mdRender) foot() {
	r.b.WriteString("---\n")
	fmt.Fprintf(&r.b, "Plan fingerprint: `%s`\n\n", r.p.Fingerprint())
	switch {
	case len(r.p.Refusals) > 0:
		r.b.WriteString("Refused plans are never applied; this fingerprint names what was proposed.\n")
	case r.p.Writes() > 0:
		r.b.WriteString("Applied only as reviewed: `ipsync apply --reviewed <fingerprint> --commit`, or the reconciler given this fingerprint, writes exactly these changes, or refuses if the spec or the target changed since.\n")
	}
}

// full reports whether the rendering has no room left but the foot's.
func (r *mdRender) full() bool { return r.b.Len() > r.m.MaxBytes-footRoom }

// diffBlock writes groups of lines (a change's, or one line each) as a
// diff, folded unless open: at most limit groups, whole ones, as many as
// the budget holds; it counts those left out as more.
func (r *mdRender) diffBlock(open bool, summary string, groups [][]string, limit int, more string) {
	r.details(open, summary, func() {
		var lines []string
		room := r.m.MaxBytes - footRoom - r.b.Len()
		shown := 0
		for _, g := range groups {
			n := lineBytes(g)
			if shown == limit || n > room {
				break
			}
			lines = append(lines, g...)
			room -= n
			shown++
		}
		if shown > 0 {
			r.fenced("diff", lines)
		}
		if rest := len(groups) - shown; rest > 0 {
			fmt.Fprintf(&r.b, "… and %d %s, not shown here (`ipsync plan -o json` lists every one).\n\n", rest, more)
		}
	})
}

// details wraps what body writes in a <details> element, open or folded.
func (r *mdRender) details(open bool, summary string, body func()) {
	attr := ""
	if open {
		attr = " open"
	}
	fmt.Fprintf(&r.b, "<details%s><summary>%s</summary>\n\n", attr, summary)
	body()
	r.b.WriteString("</details>\n\n")
}

// fenced writes lines as a fenced code block, its fence longer than any
// run of backticks in them.
func (r *mdRender) fenced(lang string, lines []string) {
	fence := strings.Repeat("`", max(3, longestRun(lines, '`')+1))
	fmt.Fprintf(&r.b, "%s%s\n", fence, lang)
	for _, l := range lines {
		r.b.WriteString(l)
		r.b.WriteByte('\n')
	}
	fmt.Fprintf(&r.b, "%s\n\n", fence)
}

func diffLines(c Change) []string {
	lines := []string{fmt.Sprintf("%c %s %s %s", headMark(c.Action), c.Action, c.Key.Kind, c.Key.Name)}
	if c.Reason != "" {
		lines = append(lines, "  # "+c.Reason)
	}
	for _, f := range c.Fields {
		switch c.Action {
		case Create:
			lines = append(lines, fmt.Sprintf("+     %s: %q", f.Field, f.New))
		case Delete:
			lines = append(lines, fmt.Sprintf("-     %s: %q", f.Field, f.Old))
		default:
			lines = append(lines, fmt.Sprintf("-     %s: %q", f.Field, f.Old), fmt.Sprintf("+     %s: %q", f.Field, f.New))
		}
	}
	return lines
}

// headMark is the diff marker of a change's first line: green for what
// is created, red for what is deleted, plain for what is changed in place.
func headMark(a Action) byte {
	switch a {
	case Create:
		return '+'
	case Delete:
		return '-'
	}
	return ' '
}

func lineBytes(lines []string) int {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	return n
}

func longestRun(lines []string, ch byte) int {
	best := 0
	for _, l := range lines {
		run := 0
		for i := 0; i < len(l); i++ {
			if l[i] == ch {
				run++
				best = max(best, run)
			} else {
				run = 0
			}
		}
	}
	return best
}

// mdText escapes what Markdown or HTML would read as markup in free text
// (a refusal, a reason), so that it shows as written.
func mdText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '|', '#', '~', '!':
			b.WriteByte('\\')
		case '&':
			b.WriteString("&amp;")
			continue
		case '\n':
			b.WriteByte(' ')
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mdCode shows s as inline code, with a delimiter s does not contain.
func mdCode(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	fence := strings.Repeat("`", longestRun([]string{s}, '`')+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}
