package emulator

import (
	"cmp"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// paging is a limit/offset read of a whole list, page by page, as
// ipsync's sweep reads.
type paging struct {
	path  string   // list path with its filters
	limit int      // page size
	order []string // fields of the model's ordering, which pages must follow
	ids   []string // the objects the list holds, as placeholders
}

// page reads every page of s.pages and checks the count, the page sizes,
// the next links and the ordering. Which of several objects that tie in
// the ordering comes first is up to the database: a real server may
// repeat one of them on two pages and skip another, which is logged, not
// failed, as it is what ipsync must live with.
func (r *run) page(n int, s step) {
	t := r.t
	t.Helper()
	p := s.pages
	want := make([]string, len(p.ids))
	for i, id := range p.ids {
		want[i] = r.subst(id)
	}
	base := r.subst(p.path)
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	var seen []string
	var keys [][]any
	for offset := 0; ; offset += p.limit {
		path := fmt.Sprintf("%s%slimit=%d&depth=0", base, sep, p.limit)
		if offset > 0 {
			path += "&offset=" + strconv.Itoa(offset)
		}
		label := fmt.Sprintf("step %d (%s): GET %s", n, s.what, path)
		got, err := r.tg.do(http.MethodGet, path, nil, nil)
		if err != nil || got.status != http.StatusOK {
			t.Fatalf("%s: %v %d %.500s", label, err, got.status, got.raw)
		}
		count, _ := lookup(got.body, "count")
		results, _ := lookup(got.body, "results")
		page, _ := results.([]any)
		if count != float64(len(want)) {
			t.Fatalf("%s: count %v, want %d", label, count, len(want))
		}
		if exp := min(p.limit, len(want)-offset); len(page) != exp {
			t.Errorf("%s: %d results, want %d", label, len(page), exp)
		}
		next, _ := lookup(got.body, "next")
		nextURL, hasNext := next.(string)
		if more := offset+p.limit < len(want); more != hasNext {
			t.Errorf("%s: next %v, want a link: %v", label, next, more)
		}
		if hasNext {
			u, err := url.Parse(nextURL)
			if err != nil || u.Query().Get("offset") != strconv.Itoa(offset+p.limit) || u.Query().Get("limit") != strconv.Itoa(p.limit) {
				t.Errorf("%s: next %q, want limit=%d&offset=%d", label, nextURL, p.limit, offset+p.limit)
			}
		}
		for _, o := range page {
			id, _ := lookup(o, "id")
			s, _ := id.(string)
			seen = append(seen, s)
			var k []any
			for _, f := range p.order {
				v, _ := lookup(o, f)
				k = append(k, v)
			}
			keys = append(keys, k)
		}
		if !hasNext || len(page) == 0 {
			break
		}
	}
	for i := 1; i < len(keys); i++ {
		if compareKeys(keys[i-1], keys[i]) > 0 {
			t.Errorf("step %d (%s): result %d %s comes before %s, against the ordering %v", n, s.what, i, show(keys[i-1]), show(keys[i]), p.order)
		}
	}
	var missing, repeated []string
	for _, id := range want {
		switch c := strings.Count(strings.Join(seen, " "), id); {
		case c == 0:
			missing = append(missing, id)
		case c > 1:
			repeated = append(repeated, id)
		}
	}
	for _, id := range seen {
		if !slices.Contains(want, id) {
			t.Errorf("step %d (%s): object %s is not one of the list's", n, s.what, id)
		}
	}
	if len(missing)+len(repeated) > 0 {
		t.Logf("step %d (%s): offset paging over ties repeated %v and skipped %v", n, s.what, repeated, missing)
	} else {
		t.Logf("step %d (%s): pages of %d held each of %d objects once", n, s.what, p.limit, len(want))
	}
}

// compareKeys orders ordering keys field by field: addresses as
// addresses, numbers as numbers, other values as text.
func compareKeys(a, b []any) int {
	for i := range a {
		if c := compareValue(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

func compareValue(a, b any) int {
	if x, ok := a.(float64); ok {
		if y, ok := b.(float64); ok {
			return cmp.Compare(x, y)
		}
	}
	sa, sb := fmt.Sprint(a), fmt.Sprint(b)
	if x, err := netip.ParseAddr(sa); err == nil {
		if y, err := netip.ParseAddr(sb); err == nil {
			return x.Compare(y)
		}
	}
	return strings.Compare(sa, sb)
}
