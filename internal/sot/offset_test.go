package sot

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ipsync/ipsync/internal/httpapi"
)

// drfPage is the page of list at q's offset and limit as a DRF server
// gives it, claiming count objects, with a next link built on host (as a
// server behind a proxy may build it).
func drfPage(list []int, count int, q url.Values, host string) map[string]any {
	off, _ := strconv.Atoi(q.Get("offset"))
	lim, _ := strconv.Atoi(q.Get("limit"))
	end := min(off+lim, len(list))
	res := []obj{}
	if off < len(list) {
		for _, id := range list[off:end] {
			res = append(res, obj{ID: id})
		}
	}
	var next any
	if end < len(list) {
		next = fmt.Sprintf("https://%s/api/objs/?limit=%d&offset=%d", host, lim, end)
	}
	return map[string]any{"count": count, "next": next, "results": res}
}

// TestOffset: a read by offset returns every object or fails; it never
// returns part of a list, nor an object twice.
func TestOffset(t *testing.T) {
	five := []int{1, 2, 3, 4, 5}
	for _, tc := range []struct {
		name    string
		growing bool
		// page answers the n-th request (from 0).
		page     func(n int, q url.Values) (int, any)
		want     []int
		fails    string // a word of the error
		progress []string
	}{
		{name: "pages add up; next links on another host are followed on ours",
			page: func(_ int, q url.Values) (int, any) { return 200, drfPage(five, 5, q, "proxy.invalid") },
			want: five,
			progress: []string{"expect read test objs 5", "add read test objs 2", "add read test objs 2",
				"add read test objs 1"}},
		{name: "one page reports no progress",
			page: func(_ int, q url.Values) (int, any) { return 200, drfPage([]int{1}, 1, q, "x") },
			want: []int{1}, progress: nil},
		{name: "empty list",
			page: func(_ int, q url.Values) (int, any) { return 200, drfPage(nil, 0, q, "x") },
			want: []int{}, progress: nil},
		{name: "count changes mid-read",
			page:  func(n int, q url.Values) (int, any) { return 200, drfPage(five, 5+n, q, "x") },
			fails: "count changed"},
		{name: "short read: the last page comes early",
			page: func(n int, q url.Values) (int, any) {
				p := drfPage(five, 5, q, "x")
				if n == 1 {
					p["next"] = nil
				}
				return 200, p
			},
			fails: "short read"},
		{name: "short read: an empty page with a next link",
			page: func(n int, q url.Values) (int, any) {
				p := drfPage(five, 5, q, "x")
				if n == 1 {
					p["results"] = []obj{}
				}
				return 200, p
			},
			fails: "short read"},
		{name: "more objects than the count",
			page:  func(_ int, q url.Values) (int, any) { return 200, drfPage(five, 4, q, "x") },
			fails: "short read"},
		{name: "sort ignored: unsorted ids without a repeat are a whole list",
			page: func(_ int, q url.Values) (int, any) { return 200, drfPage([]int{3, 1, 2}, 3, q, "x") },
			want: []int{3, 1, 2}, progress: []string{"expect read test objs 3", "add read test objs 2", "add read test objs 1"}},
		{name: "sort ignored: a repeated id means another was missed",
			page:  func(_ int, q url.Values) (int, any) { return 200, drfPage([]int{3, 1, 3}, 3, q, "x") },
			fails: "came twice"},
		{name: "next link does not advance",
			page: func(_ int, q url.Values) (int, any) {
				p := drfPage(five, 5, q, "x")
				if p["next"] != nil {
					p["next"] = "https://x/api/objs/?limit=2&offset=" + q.Get("offset")
				}
				return 200, p
			},
			fails: "does not advance"},
		{name: "next link without an offset",
			page: func(_ int, q url.Values) (int, any) {
				p := drfPage(five, 5, q, "x")
				p["next"] = "https://x/api/objs/?cursor=abc"
				return 200, p
			},
			fails: "does not advance"},
		{name: "next link unparsable",
			page: func(_ int, q url.Values) (int, any) {
				p := drfPage(five, 5, q, "x")
				p["next"] = "https://x/%zz"
				return 200, p
			},
			fails: "bad next link"},
		{name: "server error",
			page:  func(_ int, _ url.Values) (int, any) { return 403, `{"detail":"no"}` },
			fails: "403"},
		{name: "garbled answer",
			page:  func(_ int, _ url.Values) (int, any) { return 200, `{"count":` },
			fails: "unreadable"},
		{name: "growing: rows added behind the page shift rows already read onto it, which are dropped",
			growing: true,
			page: func(n int, q url.Values) (int, any) {
				list := []int{10, 20, 30, 40}
				if n > 0 {
					list = []int{5, 7, 10, 20, 30, 40}
				}
				return 200, drfPage(list, len(list), q, "x")
			},
			want: []int{10, 20, 30, 40},
			progress: []string{"expect read test objs 4", "add read test objs 2", "add read test objs 2",
				"add read test objs 2"}},
		{name: "growing: a row added ahead of the page is read",
			growing: true,
			page: func(n int, q url.Values) (int, any) {
				list := []int{10, 20, 30}
				if n > 0 {
					list = []int{10, 20, 30, 40}
				}
				return 200, drfPage(list, len(list), q, "x")
			},
			want:     []int{10, 20, 30, 40},
			progress: []string{"expect read test objs 3", "add read test objs 2", "add read test objs 2"}},
		{name: "growing: a list that shrank",
			growing: true,
			page: func(n int, q url.Values) (int, any) {
				list := []int{10, 20, 30}
				if n > 0 {
					list = []int{20, 30}
				}
				return 200, drfPage(list, len(list), q, "x")
			},
			fails: "count changed"},
		{name: "growing: not by id",
			growing: true,
			page: func(_ int, q url.Values) (int, any) {
				return 200, drfPage([]int{10, 20, 40, 30}, 4, q, "x")
			},
			fails: "not by id"},
		{name: "growing: read short of the count it started with",
			growing: true,
			page: func(n int, q url.Values) (int, any) {
				p := drfPage(five, 5, q, "x")
				if n == 1 {
					p["next"] = nil
				}
				return 200, p
			},
			fails: "short read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			n := 0
			p, prog, asked := pager(t, 2, func(q url.Values) (int, any) {
				mu.Lock()
				defer mu.Unlock()
				n++
				return tc.page(n-1, q)
			})
			got, err := Offset[obj, int](bg, p, "/api/objs/", url.Values{"tag": {"a"}, "offset": {"7"}}, nil, tc.growing)
			if tc.fails != "" {
				if err == nil || !strings.Contains(err.Error(), tc.fails) {
					t.Fatalf("Offset = %v, %v; want an error saying %q", ids(got), err, tc.fails)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(got), tc.want) {
				t.Errorf("Offset = %v, want %v", ids(got), tc.want)
			}
			if !slices.Equal(prog.calls, tc.progress) {
				t.Errorf("progress = %q, want %q", prog.calls, tc.progress)
			}
			for i, q := range *asked {
				want := url.Values{"tag": {"a"}, "limit": {"2"}, "depth": {"0"}, "sort": {"id"}}
				if i > 0 {
					want.Set("offset", strconv.Itoa(2*i))
				}
				if q.Encode() != want.Encode() {
					t.Errorf("request %d asked %s, want %s", i, q.Encode(), want.Encode())
				}
			}
		})
	}
}

// TestGet: a page is the server's answer; anything but 200 is an error
// naming what was read.
func TestGet(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   any
		want   []int
		fails  bool
	}{
		{200, map[string]any{"count": 2, "results": []obj{{1}, {2}}}, []int{1, 2}, false},
		{201, map[string]any{"count": 0, "results": []obj{}}, nil, true},
		{404, `{"detail":"Not found."}`, nil, true},
	} {
		p, _, _ := pager(t, 10, func(url.Values) (int, any) { return tc.status, tc.body })
		pg, err := Get[obj](bg, p, "list things", "/api/objs/", nil, nil)
		if tc.fails {
			if err == nil || !strings.Contains(err.Error(), "list things") {
				t.Errorf("Get with %d = %v, want an error naming the read", tc.status, err)
			}
			continue
		}
		if err != nil || !slices.Equal(ids(pg.Results), tc.want) || pg.Count != 2 {
			t.Errorf("Get = %+v, %v; want %v", pg, err, tc.want)
		}
	}
}

// TestGetRetried: a garbled page is retried, and counted in the tally.
func TestGetRetried(t *testing.T) {
	var mu sync.Mutex
	n := 0
	c, _ := client(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if first {
			writeJSON(w, 200, `{"count":1,"results":[`)
			return
		}
		writeJSON(w, 200, map[string]any{"count": 1, "results": []obj{{7}}})
	}), 2)
	tally := &httpapi.Tally{}
	pg, err := Get[obj](bg, Pager{Do: c.Do}, "list", "/api/objs/", nil, tally)
	if err != nil || !slices.Equal(ids(pg.Results), []int{7}) {
		t.Fatalf("Get = %+v, %v", pg, err)
	}
	if got := tally.Reads(); got != 2 {
		t.Errorf("tally reads = %d, want 2", got)
	}
}

// TestByIDs: ids are read IDsPerRead at a time, each chunk as id=
// parameters; an error stops the read.
func TestByIDs(t *testing.T) {
	all := make([]int, 2*IDsPerRead+1)
	for i := range all {
		all[i] = i + 1
	}
	var chunks []int
	got, err := ByIDs(all, func(q url.Values) ([]obj, error) {
		chunks = append(chunks, len(q["id"]))
		var out []obj
		for _, s := range q["id"] {
			id, _ := strconv.Atoi(s)
			out = append(out, obj{ID: id})
		}
		return out, nil
	})
	if err != nil || !slices.Equal(ids(got), all) {
		t.Fatalf("ByIDs = %v, %v", ids(got), err)
	}
	if want := []int{IDsPerRead, IDsPerRead, 1}; !slices.Equal(chunks, want) {
		t.Errorf("chunks = %v, want %v", chunks, want)
	}
	calls := 0
	_, err = ByIDs(all, func(url.Values) ([]obj, error) { calls++; return nil, fmt.Errorf("boom") })
	if err == nil || calls != 1 {
		t.Errorf("ByIDs with a failing read = %v after %d reads, want an error after 1", err, calls)
	}
	if got, err := ByIDs[obj, int](nil, func(url.Values) ([]obj, error) { t.Error("read of no ids"); return nil, nil }); got != nil || err != nil {
		t.Errorf("ByIDs(nil) = %v, %v", got, err)
	}
}

func TestReadLabel(t *testing.T) {
	for path, want := range map[string]string{
		"/api/ipam/vlans/":            "read nautobot vlans",
		"/api/ipam/vlans":             "read nautobot vlans",
		"vlans":                       "read nautobot vlans",
		"/api/extras/object-changes/": "read nautobot object-changes",
	} {
		if got := readLabel("nautobot", path); got != want {
			t.Errorf("readLabel(%q) = %q, want %q", path, got, want)
		}
	}
	var p Progress = NoProgress{}
	p.Expect("x", 1)
	p.Add("x", 1)
}
