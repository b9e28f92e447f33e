package sot

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/ipsync/ipsync/internal/httpapi"
)

// Pager reads list endpoints of one server page by page.
type Pager struct {
	// Do sends a request the way the dialect must (its version pin).
	Do       func(context.Context, httpapi.Request) (*httpapi.Response, error)
	PageSize int
	Progress Progress
	Server   string // "nautobot" or "netbox", in progress labels
	// Decode decodes a page (httpapi.Decoder's, which shares what the
	// objects of a page repeat); nil: encoding/json.
	Decode func([]byte, any) error
}

// Page is one answer of a list endpoint. In NetBox's cursor mode count
// is null.
type Page[T any] struct {
	Count   int     `json:"count"`
	Next    *string `json:"next"`
	Results []T     `json:"results"`
}

// Identified is a wire object with an id: a UUID on Nautobot, a primary
// key on NetBox.
type Identified[ID cmp.Ordered] interface{ ObjectID() ID }

// Get reads one page of path.
func Get[T any](ctx context.Context, p Pager, what, path string, q url.Values, t *httpapi.Tally) (Page[T], error) {
	decode := p.Decode
	if decode == nil {
		decode = json.Unmarshal
	}
	var pg Page[T]
	r := httpapi.Request{Method: http.MethodGet, Path: path, Query: q, Tally: t,
		Decode: func(b []byte) error { pg = Page[T]{}; return decode(b, &pg) }}
	resp, err := p.Do(ctx, r)
	if err != nil {
		return Page[T]{}, fmt.Errorf("%s: %w", what, err)
	}
	if resp.Status != http.StatusOK {
		return Page[T]{}, fmt.Errorf("%s: %w", what, r.Error(resp))
	}
	return pg, nil
}

// Offset reads every object a list query matches, page by page by
// offset. It fails unless the pages add up to the count the server gave,
// so a read cut short (a lost page, an early end, objects written
// meanwhile) is an error and never a short list.
//
// Pages are offsets into the list's ordering, and Nautobot's default
// orderings have ties (IP addresses by host, so the same address in two
// namespaces; locations by name, unique only per parent): between two
// page queries the database may order tied rows differently, and one row
// then comes twice while another never comes, with the count still
// right. So the list is read by id, which is unique (sort=id; honoured by
// every list endpoint of Nautobot 2.4 and 3.x, checked on real servers).
// The ids are then checked: ascending proves that no object came twice;
// if a server ignored the sort, a repeated id is an error rather than a
// list with a hole in it.
//
// A growing list (the change log, which every agent of every site writes
// to) only grows while it is read: a row added behind the page being read
// shifts the rows after it by one, so the next page starts with rows
// already read; those are dropped. No row that was there when the read
// began is lost that way; only a row added behind the page is missed (one
// added ahead of it is read), and a follower of the log reads the newest
// entries again on its next read anyway. A list that shrank, or one read
// short of the count it started with, is still an error.
func Offset[T any, ID cmp.Ordered, PT interface {
	*T
	Identified[ID]
}](ctx context.Context, p Pager, path string, query url.Values, t *httpapi.Tally, growing bool) ([]T, error) {
	q := httpapi.With(query, url.Values{"limit": {strconv.Itoa(p.PageSize)}, "depth": {"0"}, "sort": {"id"}})
	q.Del("offset")
	label := readLabel(p.Server, path)
	var out []T
	count, offset := -1, 0
	for {
		pg, err := Get[T](ctx, p, "list "+path, path, q, t)
		if err != nil {
			return nil, err
		}
		if count < 0 {
			count = pg.Count
			out = make([]T, 0, count)
			if count > len(pg.Results) {
				p.Progress.Expect(label, count)
			}
		} else if pg.Count != count && (!growing || pg.Count < count) {
			return nil, fmt.Errorf("list %s: count changed from %d to %d during the read; objects were written meanwhile, read again", path, count, pg.Count)
		}
		if growing {
			fresh, err := pastLast[T, ID, PT](out, pg.Results)
			if err != nil {
				return nil, fmt.Errorf("list %s: %w", path, err)
			}
			out = append(out, fresh...)
		} else {
			out = append(out, pg.Results...)
		}
		if count > len(pg.Results) || offset > 0 {
			p.Progress.Add(label, len(pg.Results))
		}
		if pg.Next == nil || *pg.Next == "" || len(pg.Results) == 0 {
			break
		}
		next, err := nextLink(path, *pg.Next)
		if err != nil {
			return nil, err
		}
		o, err := strconv.Atoi(next.Get("offset"))
		if err != nil || o <= offset {
			return nil, fmt.Errorf("list %s: next link %q does not advance past offset %d", path, *pg.Next, offset)
		}
		offset = o
		q.Set("offset", strconv.Itoa(offset))
	}
	if len(out) < count || (!growing && len(out) != count) {
		return nil, fmt.Errorf("list %s: short read: got %d of %d objects", path, len(out), count)
	}
	if growing {
		return out, nil // pastLast proved the order page by page
	}
	if id, ok := repeated[T, ID, PT](out); ok {
		return nil, fmt.Errorf("list %s: object %v came twice, so another one was missed: the server's paging is not by a unique order; read again", path, id)
	}
	return out, nil
}

// Cursor reads every object a list query matches, page by page, in
// NetBox's cursor mode: each page holds the objects from a primary key on,
// ordered by it, and the next page starts past the last key read. Unlike
// offsets, keys do not shift when objects are written meanwhile, so no
// object is read twice or skipped for that. Each page is checked to go on
// exactly where the last one ended (ascending keys from the start asked
// for), so a server that ignored the cursor is an error, never a list
// with holes. A page shorter than the limit is the last: NetBox then
// gives no next link.
func Cursor[T any, PT interface {
	*T
	Identified[int]
}](ctx context.Context, p Pager, path string, query url.Values, t *httpapi.Tally) ([]T, error) {
	q := httpapi.With(query, url.Values{"limit": {strconv.Itoa(p.PageSize)}})
	q.Del("offset")
	label := readLabel(p.Server, path)
	start := 0
	var out []T
	for pages := 0; ; pages++ {
		q.Set("start", strconv.Itoa(start))
		pg, err := Get[T](ctx, p, "list "+path, path, q, t)
		if err != nil {
			return nil, err
		}
		last := start - 1
		for i := range pg.Results {
			id := PT(&pg.Results[i]).ObjectID()
			if id <= last {
				return nil, fmt.Errorf("list %s: object %d came after %d: the server does not page by key (is it NetBox 4.6 or later?)", path, id, last)
			}
			last = id
		}
		out = append(out, pg.Results...)
		if pages > 0 || pg.Next != nil {
			p.Progress.Add(label, len(pg.Results))
		}
		if pg.Next == nil || *pg.Next == "" {
			return out, nil
		}
		next, err := nextLink(path, *pg.Next)
		if err != nil {
			return nil, err
		}
		s, err := strconv.Atoi(next.Get("start"))
		if err != nil || len(pg.Results) == 0 || s != last+1 {
			return nil, fmt.Errorf("list %s: next link %q does not go on after object %d", path, *pg.Next, last)
		}
		if l := next.Get("limit"); l != "" {
			q.Set("limit", l) // NetBox caps the limit at its MAX_PAGE_SIZE
		}
		start = s
	}
}

// nextLink is the query of a next link. It is followed on our own base
// URL, by its offset or cursor: behind a proxy a server may build next
// links with the wrong scheme or host, and the token must not go
// anywhere else.
func nextLink(path, link string) (url.Values, error) {
	next, err := url.Parse(link)
	if err != nil {
		return nil, fmt.Errorf("list %s: bad next link %q: %w", path, link, err)
	}
	return next.Query(), nil
}

// pastLast returns the rows of a page of a growing list that come after
// the rows read so far: the page may start with rows already read, which
// rows added meanwhile pushed onto it, and must then go on in ascending
// order of id, or the server is not paging by id.
func pastLast[T any, ID cmp.Ordered, PT interface {
	*T
	Identified[ID]
}](read, page []T) ([]T, error) {
	i := 0
	if len(read) > 0 {
		last := PT(&read[len(read)-1]).ObjectID()
		for i < len(page) && PT(&page[i]).ObjectID() <= last {
			i++
		}
	}
	for j := i + 1; j < len(page); j++ {
		if prev, id := PT(&page[j-1]).ObjectID(), PT(&page[j]).ObjectID(); id <= prev {
			return nil, fmt.Errorf("object %v came after %v: the server's paging is not by id; read again", id, prev)
		}
	}
	return page[i:], nil
}

// repeated returns an id that occurs twice in objs. Ids in ascending
// order, as sort=id gives them, are checked without a set.
func repeated[T any, ID cmp.Ordered, PT interface {
	*T
	Identified[ID]
}](objs []T) (ID, bool) {
	var zero ID
	ascending := true
	for i := 1; i < len(objs) && ascending; i++ {
		ascending = PT(&objs[i-1]).ObjectID() < PT(&objs[i]).ObjectID()
	}
	if ascending {
		return zero, false
	}
	seen := make(map[ID]bool, len(objs))
	for i := range objs {
		id := PT(&objs[i]).ObjectID()
		if seen[id] {
			return id, true
		}
		seen[id] = true
	}
	return zero, false
}

// IDsPerRead keeps a read by ids short enough for the proxies in front of
// a server (a Nautobot UUID is 36 characters).
const IDsPerRead = 100

// ByIDs reads the objects with the given ids, IDsPerRead at a time:
// read gets the query of one chunk's ids.
func ByIDs[T any, ID any](ids []ID, read func(url.Values) ([]T, error)) ([]T, error) {
	var out []T
	for chunk := range slices.Chunk(ids, IDsPerRead) {
		q := url.Values{}
		for _, id := range chunk {
			q.Add("id", fmt.Sprint(id))
		}
		got, err := read(q)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}
