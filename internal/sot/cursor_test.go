package sot

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// cursorPage is NetBox's cursor-mode page of list from q's start, at
// most max objects (its MAX_PAGE_SIZE): count is null, and the next link
// starts past the last key, with the limit the server used.
func cursorPage(list []int, q url.Values, max int) map[string]any {
	start, _ := strconv.Atoi(q.Get("start"))
	lim, _ := strconv.Atoi(q.Get("limit"))
	lim = min(lim, max)
	res := []obj{}
	for _, id := range list {
		if id >= start && len(res) < lim {
			res = append(res, obj{ID: id})
		}
	}
	var next any
	if len(res) == lim && res[len(res)-1].ID < slices.Max(list) {
		next = fmt.Sprintf("https://proxy.invalid/api/objs/?limit=%d&start=%d", lim, res[len(res)-1].ID+1)
	}
	return map[string]any{"count": nil, "next": next, "results": res}
}

// TestCursor: a read in cursor mode goes on exactly where the last page
// ended, or fails.
func TestCursor(t *testing.T) {
	list := []int{1, 2, 4, 7, 9}
	for _, tc := range []struct {
		name     string
		size     int
		page     func(n int, q url.Values) (int, any)
		want     []int
		fails    string
		progress []string
		asked    []string // the queries sent, encoded
	}{
		{name: "pages by key", size: 2,
			page:     func(_ int, q url.Values) (int, any) { return 200, cursorPage(list, q, 1000) },
			want:     list,
			progress: []string{"add read test objs 2", "add read test objs 2", "add read test objs 1"},
			asked:    []string{"limit=2&start=0&tag=a", "limit=2&start=3&tag=a", "limit=2&start=8&tag=a"}},
		{name: "one page reports no progress", size: 10,
			page: func(_ int, q url.Values) (int, any) { return 200, cursorPage(list, q, 1000) },
			want: list, asked: []string{"limit=10&start=0&tag=a"}},
		{name: "the server's cap on the limit is kept", size: 10,
			page:     func(_ int, q url.Values) (int, any) { return 200, cursorPage(list, q, 3) },
			want:     list,
			progress: []string{"add read test objs 3", "add read test objs 2"},
			asked:    []string{"limit=10&start=0&tag=a", "limit=3&start=5&tag=a"}},
		{name: "ids not ascending: the server ignores the cursor", size: 2,
			page: func(_ int, _ url.Values) (int, any) {
				return 200, map[string]any{"count": 3, "next": nil, "results": []obj{{2}, {1}}}
			},
			fails: "came after"},
		{name: "a page starting before the start asked", size: 2,
			page: func(n int, q url.Values) (int, any) {
				p := cursorPage(list, q, 1000)
				if n == 1 {
					p["results"] = []obj{{2}, {4}}
				}
				return 200, p
			},
			fails: "came after"},
		{name: "next start is not past the last key", size: 2,
			page: func(_ int, q url.Values) (int, any) {
				p := cursorPage(list, q, 1000)
				p["next"] = "https://x/api/objs/?limit=2&start=2"
				return 200, p
			},
			fails: "does not go on"},
		{name: "next link without a start", size: 2,
			page: func(_ int, q url.Values) (int, any) {
				p := cursorPage(list, q, 1000)
				p["next"] = "https://x/api/objs/?limit=2&offset=2"
				return 200, p
			},
			fails: "does not go on"},
		{name: "next link after an empty page", size: 2,
			page: func(_ int, _ url.Values) (int, any) {
				return 200, map[string]any{"next": "https://x/api/objs/?limit=2&start=0", "results": []obj{}}
			},
			fails: "does not go on"},
		{name: "next link unparsable", size: 2,
			page: func(_ int, q url.Values) (int, any) {
				p := cursorPage(list, q, 1000)
				p["next"] = "https://x/%zz"
				return 200, p
			},
			fails: "bad next link"},
		{name: "server error", size: 2,
			page:  func(_ int, _ url.Values) (int, any) { return 400, `{"start":["bad"]}` },
			fails: "400"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			n := 0
			p, prog, asked := pager(t, tc.size, func(q url.Values) (int, any) {
				mu.Lock()
				defer mu.Unlock()
				n++
				return tc.page(n-1, q)
			})
			got, err := Cursor[obj](bg, p, "/api/objs/", url.Values{"tag": {"a"}, "offset": {"5"}}, nil)
			if tc.fails != "" {
				if err == nil || !strings.Contains(err.Error(), tc.fails) {
					t.Fatalf("Cursor = %v, %v; want an error saying %q", ids(got), err, tc.fails)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(got), tc.want) {
				t.Errorf("Cursor = %v, want %v", ids(got), tc.want)
			}
			if !slices.Equal(prog.calls, tc.progress) {
				t.Errorf("progress = %q, want %q", prog.calls, tc.progress)
			}
			var sent []string
			for _, q := range *asked {
				sent = append(sent, q.Encode())
			}
			if !slices.Equal(sent, tc.asked) {
				t.Errorf("queries = %q, want %q", sent, tc.asked)
			}
		})
	}
}

// TestRepeated: a repeat is found whether or not the ids are sorted.
func TestRepeated(t *testing.T) {
	for _, tc := range []struct {
		ids  []int
		want int
		ok   bool
	}{
		{nil, 0, false},
		{[]int{1, 2, 3}, 0, false},
		{[]int{3, 1, 2}, 0, false},
		{[]int{1, 1}, 1, true},
		{[]int{2, 1, 2}, 2, true},
	} {
		objs := make([]obj, len(tc.ids))
		for i, id := range tc.ids {
			objs[i].ID = id
		}
		if got, ok := repeated[obj, int](objs); got != tc.want || ok != tc.ok {
			t.Errorf("repeated(%v) = %d, %v; want %d, %v", tc.ids, got, ok, tc.want, tc.ok)
		}
	}
}
