package drift

import (
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/ipsync/ipsync/internal/plural"
)

// Shown is how many objects of a group the HTML report lists; the rest
// are counted, and are in the JSON and text reports. A site that lost its
// target's records drifts by the ten thousand, and a page listing them
// all took browsers half a minute to open.
const Shown = 100

// PageRows is how many objects one page of a group lists, where pages
// are served (the agent's).
const PageRows = 500

// openUpTo is the largest group shown unfolded: a few objects read at a
// glance, many only once asked for.
const openUpTo = 20

// driftOrder is the kinds of drift in the order the report groups them;
// "leak" is the leaks, grouped by their own kind.
var driftOrder = [...]string{"missing", "different", "extra", "unmarked", "foreign", "leak"}

// Group is the objects of one owner of one kind and drift: what the HTML
// report folds and pages.
type Group struct {
	Owner string // as Owner.Name shows it
	Kind  string
	Drift string // missing, different, extra, unmarked, foreign, or leak
}

// ErrNoGroup is a group or page the report does not have.
var ErrNoGroup = errors.New("no such group or page in the drift report")

// HTML is how WriteHTML lays out its page; the zero value is the saved
// report's.
type HTML struct {
	// Title is the page's title (default "ipsync drift — " and the target).
	Title string
	// Refresh reloads the page this often; zero never. A live page (the
	// agent's) may; a saved file must not.
	Refresh time.Duration
	// Top replaces the report's heading: the agent's own part of its page.
	Top template.HTML
	// Link is the address of page n (from 1) of a group, where one is
	// served; nil, the report says which reports list every object. The
	// page filters it as any URL it did not make, so it is to be escaped
	// (url.Values) and relative or http(s).
	Link func(g Group, page int) string
}

// groupView is a group as a page shows it: its count and the objects
// listed.
type groupView struct {
	Group
	Total int
	Items []Item
	Leaks []Leak
	// First is the position (from 1) of the first object listed.
	First int
	Open  bool
	Link  string // all of the group, page by page; empty where not served
}

// Listed is how many of the group's objects the page lists.
func (g groupView) Listed() int { return len(g.Items) + len(g.Leaks) }

// More is how many of the group's objects are not listed.
func (g groupView) More() int { return g.Total - g.Listed() }

type ownerView struct {
	Owner
	Anchor string
	Counts map[string]int // per drift
	Groups []groupView
}

// groups folds o's items and leaks into groups, each listing at most
// limit objects: the items' kinds in the order they first appear (the
// plan's), then the leaks', and within a kind the drifts in driftOrder.
func groups(o Owner, limit int) []groupView {
	type key struct{ kind, drift string }
	at := map[key]int{}
	var out []groupView
	add := func(k key) *groupView {
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, groupView{Group: Group{Owner: o.Name(), Kind: k.kind, Drift: k.drift}, First: 1})
		}
		return &out[i]
	}
	kinds := map[key]int{} // rank of a kind, leaks' apart
	rank := func(k key) {
		if k.drift != "leak" {
			k.drift = ""
		}
		if _, ok := kinds[k]; !ok {
			kinds[k] = len(kinds)
		}
	}
	for _, it := range o.Items {
		k := key{string(it.Kind), it.Drift}
		rank(k)
		g := add(k)
		g.Total++
		if len(g.Items) < limit {
			g.Items = append(g.Items, it)
		}
	}
	leakRank := len(kinds)
	for _, l := range o.Leaks {
		k := key{l.Kind, "leak"}
		rank(k)
		g := add(k)
		g.Total++
		if len(g.Leaks) < limit {
			g.Leaks = append(g.Leaks, l)
		}
	}
	order := func(g groupView) (int, int) {
		k := key{g.Kind, ""}
		if g.Drift == "leak" {
			k.drift = "leak"
		}
		r := kinds[k]
		if g.Drift == "leak" {
			r += leakRank // after every item's kind
		}
		return r, slices.Index(driftOrder[:], g.Drift)
	}
	slices.SortStableFunc(out, func(a, b groupView) int {
		ak, ad := order(a)
		bk, bd := order(b)
		if ak != bk {
			return ak - bk
		}
		return ad - bd
	})
	for i := range out {
		out[i].Open = out[i].Total <= openUpTo
	}
	return out
}

// counts is o's drifting objects per drift, leaks under "leak".
func counts(o Owner) map[string]int {
	out := map[string]int{}
	for _, it := range o.Items {
		out[it.Drift]++
	}
	out["leak"] = len(o.Leaks)
	return out
}

//go:embed report.html.tmpl
var reportHTML string

func parseReport() (*template.Template, error) {
	t, err := template.New("report").Funcs(template.FuncMap{
		"plural":  plural.Of,
		"percent": func(f float64) string { return strconv.Itoa(int(math.Round(f*100))) + "%" },
		"seconds": func(d time.Duration) string {
			return strconv.Itoa(int(d.Round(time.Second) / time.Second))
		},
	}).Parse(reportHTML)
	if err != nil {
		return nil, fmt.Errorf("parse report template: %w", err)
	}
	return t, nil
}

// WriteHTML writes a self-contained page: inline CSS, no scripts, readable
// in any browser and as a saved file. Its Content-Security-Policy forbids
// scripts and every fetch, so a browser shows it only as it works without
// JavaScript and without the network.
//
// The page sums up first: per owner, the objects per kind and drift; then
// each kind and drift folded, listing at most Shown objects, so that a
// report of many thousand objects still opens at once. Small groups are
// unfolded.
func (r *Report) WriteHTML(w io.Writer, h HTML) error {
	t, err := parseReport()
	if err != nil {
		return err
	}
	owners := make([]ownerView, len(r.Owners))
	for i, o := range r.Owners {
		v := ownerView{Owner: o, Anchor: "owner-" + strconv.Itoa(i+1), Counts: counts(o), Groups: groups(o, Shown)}
		for j := range v.Groups {
			if h.Link != nil && v.Groups[j].More() > 0 {
				v.Groups[j].Link = h.Link(v.Groups[j].Group, 1)
			}
		}
		owners[i] = v
	}
	if h.Title == "" {
		h.Title = "ipsync drift — " + r.Target
	}
	return t.ExecuteTemplate(w, "report", struct {
		*Report
		HTML
		Views  []ownerView
		Shown  int
		Drifts []string
	}{r, h, owners, Shown, driftOrder[:]})
}

// WriteGroupHTML writes page n (from 1) of group g: PageRows of its
// objects, with links to the pages before and after it. A group or page
// the report does not have is ErrNoGroup.
func (r *Report) WriteGroupHTML(w io.Writer, h HTML, g Group, page int) error {
	var found *Owner
	for i := range r.Owners {
		if r.Owners[i].Name() == g.Owner {
			found = &r.Owners[i]
			break
		}
	}
	if found == nil || page < 1 {
		return fmt.Errorf("%s %s %s page %d: %w", g.Owner, g.Kind, g.Drift, page, ErrNoGroup)
	}
	// Only the page's objects of g, and how many g has.
	sub := Owner{Owner: found.Owner, Target: found.Target}
	first := (page-1)*PageRows + 1
	onPage := func(n int) bool { return n >= first && n < first+PageRows }
	n := 0
	if g.Drift == "leak" {
		for _, l := range found.Leaks {
			if l.Kind == g.Kind {
				if n++; onPage(n) {
					sub.Leaks = append(sub.Leaks, l)
				}
			}
		}
	} else {
		for _, it := range found.Items {
			if string(it.Kind) == g.Kind && it.Drift == g.Drift {
				if n++; onPage(n) {
					sub.Items = append(sub.Items, it)
				}
			}
		}
	}
	if n < first {
		return fmt.Errorf("%s %s %s page %d of %d objects: %w", g.Owner, g.Kind, g.Drift, page, n, ErrNoGroup)
	}
	gs := groups(sub, PageRows)
	view := gs[0]
	view.Total, view.First = n, first
	pages := (n + PageRows - 1) / PageRows
	t, err := parseReport()
	if err != nil {
		return err
	}
	if h.Title == "" {
		h.Title = fmt.Sprintf("ipsync drift — %s %s %s, page %d of %d", g.Owner, g.Kind, g.Drift, page, pages)
	}
	var prev, next string
	if h.Link != nil && page > 1 {
		prev = h.Link(g, page-1)
	}
	if h.Link != nil && page < pages {
		next = h.Link(g, page+1)
	}
	return t.ExecuteTemplate(w, "group page", struct {
		*Report
		HTML
		Group      groupView
		Last       int
		Page       int
		Pages      int
		Prev, Next string
	}{r, h, view, first + view.Listed() - 1, page, pages, prev, next})
}
