package drift

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// groupsOf splits a page into its folded groups: each one's summary line
// and how many object rows it lists.
func groupsOf(t *testing.T, page string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, g := range strings.Split(page, "<details")[1:] {
		g = g[:strings.Index(g, "</details>")]
		summary := regexp.MustCompile(`<summary>(.*?)</summary>`).FindStringSubmatch(g)
		if summary == nil {
			t.Fatalf("a group without a summary:\n%s", g)
		}
		line := regexp.MustCompile(`<[^>]+>`).ReplaceAllString(summary[1], "")
		out[line] = strings.Count(g, "<tr class=")
	}
	return out
}

// TestLargeReport: a report of 50,000 drifting objects sums them up first
// and lists at most Shown of each kind and drift, so its page stays small.
func TestLargeReport(t *testing.T) {
	r := largeReport(50000)
	if n := r.Count(); n != 50050 {
		t.Fatalf("fixture drifts %d objects and leaks, want 50050", n)
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b, HTML{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	t.Logf("HTML report of %d objects: %d bytes", r.Count(), b.Len())
	if b.Len() > 400_000 {
		t.Errorf("the report is %d bytes, want at most 400 kB", b.Len())
	}
	// The sums come before any object's row.
	firstRow := strings.Index(page, "<tr class=")
	for _, want := range []string{
		`<a href="#owner-1">neutron:a11</a>`, "<td class=\"num\">23500</td>", // overview: missing of all kinds
		"50000 objects drift, 50 leaks.",
		"<td>ip_address</td><td class=\"num\">20000</td><td class=\"num\">15000</td><td class=\"num\">10000</td>",
	} {
		if i := strings.Index(page, want); i < 0 || i > firstRow {
			t.Errorf("the summary %q is not before the first row (at %d, first row at %d)", want, i, firstRow)
		}
	}
	want := map[string]int{
		"missing vlan: 500 (100 listed)":           100,
		"extra vlan: 500 (100 listed)":             100,
		"missing prefix: 3000 (100 listed)":        100,
		"different prefix: 1000 (100 listed)":      100,
		"missing ip_address: 20000 (100 listed)":   100,
		"different ip_address: 15000 (100 listed)": 100,
		"extra ip_address: 10000 (100 listed)":     100,
		"leak segment: 50":                         50,
	}
	got := groupsOf(t, page)
	if len(got) != len(want) {
		t.Errorf("groups %v, want %v", got, want)
	}
	for g, n := range want {
		if got[g] != n {
			t.Errorf("group %q lists %d rows, want %d", g, got[g], n)
		}
	}
	for _, more := range []string{"400 more not listed here", "2900 more", "900 more", "19900 more", "14900 more", "9900 more"} {
		if !strings.Contains(page, more) {
			t.Errorf("the report lacks %q", more)
		}
	}
	if strings.Contains(page, "<details class=\"group\" open>") {
		t.Errorf("a group of more than %d objects is unfolded", openUpTo)
	}
	if !strings.Contains(page, "<code>ipsync drift -o json</code> or <code>-o text</code> lists every one") {
		t.Errorf("a saved report does not say where the rest are")
	}
}

// TestGroupsFoldAndLink: groups up to openUpTo objects are unfolded; a
// page that serves the groups links to them instead of naming the reports.
func TestGroupsFoldAndLink(t *testing.T) {
	r := largeReport(1000)
	r.Owners = append(r.Owners, FromPlan(samplePlan(), nil))
	var b bytes.Buffer
	link := func(g Group, page int) string {
		return "drift?" + url.Values{"owner": {g.Owner}, "kind": {g.Kind}, "drift": {g.Drift}, "page": {fmt.Sprint(page)}}.Encode()
	}
	if err := r.WriteHTML(&b, HTML{Title: "agent <a11>", Refresh: 30e9, Link: link}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"<title>agent &lt;a11&gt;</title>", `<meta http-equiv="refresh" content="30">`,
		`<a href="drift?drift=missing&amp;kind=ip_address&amp;owner=neutron%3Aa11&amp;page=1">all 400, page by page</a>`,
		`<details class="group" open>`, // vlan missing of the sample plan: 1 object
		`<details class="group">`,      // 400 missing IP addresses
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "ipsync drift -o json</code> or") {
		t.Errorf("a page that serves the groups points to the JSON report for them")
	}
	b.Reset()
	if err := r.WriteHTML(&b, HTML{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `http-equiv="refresh"`) {
		t.Errorf("a saved report reloads itself")
	}
}

func TestGroupPages(t *testing.T) {
	r := largeReport(50000)
	link := func(g Group, page int) string { return fmt.Sprintf("p%d", page) }
	tests := []struct {
		g          Group
		page       int
		rows       int
		first      string // the first row's key
		prev, next bool
		heading    string
	}{
		{Group{"neutron:a11", "ip_address", "missing"}, 1, PageRows, "Global/10.0.0.0", false, true, "Objects 1 to 500 of 20000"},
		{Group{"neutron:a11", "ip_address", "missing"}, 2, PageRows, "", true, true, "Objects 501 to 1000 of 20000"},
		{Group{"neutron:a11", "ip_address", "missing"}, 40, PageRows, "", true, false, "Objects 19501 to 20000 of 20000"},
		{Group{"neutron:a11", "vlan", "extra"}, 1, 500, "a11-99-network/1", false, false, "Objects 1 to 500 of 500"},
		{Group{"neutron:a11", "segment", "leak"}, 1, 50, "seg-0", false, false, "Objects 1 to 50 of 50"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %s %d", tt.g.Kind, tt.g.Drift, tt.page), func(t *testing.T) {
			var b bytes.Buffer
			if err := r.WriteGroupHTML(&b, HTML{Link: link}, tt.g, tt.page); err != nil {
				t.Fatal(err)
			}
			page := b.String()
			if n := strings.Count(page, "<tr class="); n != tt.rows {
				t.Errorf("%d rows, want %d", n, tt.rows)
			}
			if !strings.Contains(page, tt.heading) {
				t.Errorf("page lacks %q", tt.heading)
			}
			if tt.first != "" && !strings.Contains(page, "<td><code>"+tt.first+"</code>") {
				t.Errorf("page lacks the first object %s", tt.first)
			}
			if got := strings.Contains(page, fmt.Sprintf(`href="p%d"`, tt.page-1)); got != tt.prev {
				t.Errorf("link to the page before: %v, want %v", got, tt.prev)
			}
			if got := strings.Contains(page, fmt.Sprintf(`href="p%d"`, tt.page+1)); got != tt.next {
				t.Errorf("link to the page after: %v, want %v", got, tt.next)
			}
		})
	}
	// Pages follow on: the last row of page 1 comes right before page 2's first.
	keys := func(page int) []string {
		var b bytes.Buffer
		if err := r.WriteGroupHTML(&b, HTML{}, Group{"neutron:a11", "ip_address", "different"}, page); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range regexp.MustCompile(`<tr class="different"><td><code>([^<]+)</code>`).FindAllStringSubmatch(b.String(), -1) {
			out = append(out, m[1])
		}
		return out
	}
	var all []string
	for _, it := range r.Owners[0].Items {
		if it.Kind == "ip_address" && it.Drift == "different" {
			all = append(all, it.Key)
		}
	}
	if got := append(keys(1), keys(2)...); strings.Join(got, " ") != strings.Join(all[:2*PageRows], " ") {
		t.Errorf("pages 1 and 2 do not list the group's first %d objects in order", 2*PageRows)
	}

	for _, bad := range []struct {
		g    Group
		page int
	}{
		{Group{"neutron:zz", "vlan", "missing"}, 1},
		{Group{"neutron:a11", "vlan", "different"}, 1},
		{Group{"neutron:a11", "vlan", "missing"}, 0},
		{Group{"neutron:a11", "vlan", "missing"}, 2},
	} {
		if err := r.WriteGroupHTML(&bytes.Buffer{}, HTML{}, bad.g, bad.page); !errors.Is(err, ErrNoGroup) {
			t.Errorf("WriteGroupHTML(%v, page %d) = %v, want ErrNoGroup", bad.g, bad.page, err)
		}
	}
}
