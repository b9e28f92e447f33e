package nautobot

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/ipsync/ipsync/internal/httpapi"
)

// page is one answer of a list endpoint.
type page[T any] struct {
	Count   int     `json:"count"`
	Next    *string `json:"next"`
	Results []T     `json:"results"`
}

// identified is a wire object with an id.
type identified interface{ objectID() string }

// sweep reads every object a list query matches, page by page. It fails
// unless the pages add up to the count Nautobot gave, so a read cut short
// (a lost page, an early end, objects written meanwhile) is an error and
// never a short list.
//
// Pages are offsets into the list's ordering, and Nautobot's default
// orderings have ties (IP addresses by host, so the same address in two
// namespaces; locations by name, unique only per parent): between two
// page queries the database may order tied rows differently, and one row
// then comes twice while another never comes, with the count still
// right. So the list is read by id, which is unique (sort=id; honoured by
// every list endpoint of 2.4 and 3.x, checked on real servers). The ids
// are then checked: ascending proves that no object came twice; if a
// server ignored the sort, a repeated id is an error rather than a list
// with a hole in it.
func sweep[T any, PT interface {
	*T
	identified
}](ctx context.Context, c *Client, path string, query url.Values, t *httpapi.Tally) ([]T, error) {
	return sweepList[T, PT](ctx, c, path, query, t, false)
}

// sweepGrowing reads a list that only grows while it is read: the change
// log, which every agent of every site writes to. A row added behind the
// page being read shifts the rows after it by one, so the next page
// starts with rows already read; those are dropped. No row that was there
// when the read began is lost that way; only a row added behind the page
// is missed (one added ahead of it is read), and a follower of the log
// reads the newest entries again on its next read anyway. A list that shrank, or one read short of the count it started
// with, is still an error.
func sweepGrowing[T any, PT interface {
	*T
	identified
}](ctx context.Context, c *Client, path string, query url.Values, t *httpapi.Tally) ([]T, error) {
	return sweepList[T, PT](ctx, c, path, query, t, true)
}

func sweepList[T any, PT interface {
	*T
	identified
}](ctx context.Context, c *Client, path string, query url.Values, t *httpapi.Tally, growing bool) ([]T, error) {
	q := url.Values{}
	for k, v := range query {
		q[k] = v
	}
	q.Set("limit", strconv.Itoa(c.cfg.PageSize))
	q.Set("depth", "0")
	q.Set("sort", "id")
	q.Del("offset")
	var out []T
	count, offset := -1, 0
	for {
		var p page[T]
		r := httpapi.Request{Method: http.MethodGet, Path: path, Query: q, Tally: t,
			Decode: func(b []byte) error { p = page[T]{}; return decode(b, &p) }}
		resp, err := c.do(ctx, r)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", path, err)
		}
		if resp.Status != http.StatusOK {
			return nil, fmt.Errorf("list %s: %w", path, r.Error(resp))
		}
		if count < 0 {
			count = p.Count
			out = make([]T, 0, count)
			if count > len(p.Results) {
				c.progress.Expect(readLabel(path), count)
			}
		} else if p.Count != count && (!growing || p.Count < count) {
			return nil, fmt.Errorf("list %s: count changed from %d to %d during the read; objects were written meanwhile, read again", path, count, p.Count)
		}
		if growing {
			fresh, err := pastLast[T, PT](out, p.Results)
			if err != nil {
				return nil, fmt.Errorf("list %s: %w", path, err)
			}
			out = append(out, fresh...)
		} else {
			out = append(out, p.Results...)
		}
		if count > len(p.Results) || offset > 0 {
			c.progress.Add(readLabel(path), len(p.Results))
		}
		if p.Next == nil || *p.Next == "" || len(p.Results) == 0 {
			break
		}
		// Follow next by its offset on our own base URL: behind a proxy
		// Nautobot may build next links with the wrong scheme or host,
		// and the token must not go anywhere else.
		next, err := url.Parse(*p.Next)
		if err != nil {
			return nil, fmt.Errorf("list %s: bad next link %q: %w", path, *p.Next, err)
		}
		o, err := strconv.Atoi(next.Query().Get("offset"))
		if err != nil || o <= offset {
			return nil, fmt.Errorf("list %s: next link %q does not advance past offset %d", path, *p.Next, offset)
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
	if id := repeated[T, PT](out); id != "" {
		return nil, fmt.Errorf("list %s: object %s came twice, so another one was missed: the server's paging is not by a unique order; read again", path, id)
	}
	return out, nil
}

// pastLast returns the rows of a page of a growing list that come after
// the rows read so far: the page may start with rows already read, which
// rows added meanwhile pushed onto it, and must then go on in ascending
// order of id, or the server is not paging by id.
func pastLast[T any, PT interface {
	*T
	identified
}](read, page []T) ([]T, error) {
	last := ""
	if len(read) > 0 {
		last = PT(&read[len(read)-1]).objectID()
	}
	i := 0
	for i < len(page) && last != "" && PT(&page[i]).objectID() <= last {
		i++
	}
	for j := i; j < len(page); j++ {
		id := PT(&page[j]).objectID()
		if id <= last {
			return nil, fmt.Errorf("object %s came after %s: the server's paging is not by id; read again", id, last)
		}
		last = id
	}
	return page[i:], nil
}

// repeated returns an id that occurs twice in objs, or "". Ids in
// ascending order, as sort=id gives them, are checked without a set.
func repeated[T any, PT interface {
	*T
	identified
}](objs []T) string {
	ascending := true
	for i := 1; i < len(objs) && ascending; i++ {
		ascending = PT(&objs[i-1]).objectID() < PT(&objs[i]).objectID()
	}
	if ascending {
		return ""
	}
	seen := make(map[string]bool, len(objs))
	for i := range objs {
		id := PT(&objs[i]).objectID()
		if seen[id] {
			return id
		}
		seen[id] = true
	}
	return ""
}

// readLabel names a list for progress: "read nautobot vlans".
func readLabel(path string) string {
	p := strings.Trim(path, "/")
	return "read nautobot " + p[strings.LastIndexByte(p, '/')+1:]
}

// byIDs fetches the objects with the given ids, in chunks that keep URLs
// short enough for the proxies in front of Nautobot.
func byIDs[T any, PT interface {
	*T
	identified
}](ctx context.Context, c *Client, path string, ids []string, t *httpapi.Tally) ([]T, error) {
	const chunk = 100
	var out []T
	for lo := 0; lo < len(ids); lo += chunk {
		q := url.Values{"id": ids[lo:min(lo+chunk, len(ids))]}
		got, err := sweep[T, PT](ctx, c, path, q, t)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}
