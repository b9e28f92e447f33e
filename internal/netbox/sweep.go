package netbox

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/ipsync/ipsync/internal/httpapi"
)

// page is one answer of a list endpoint. In cursor mode count is null.
type page[T any] struct {
	Next    *string `json:"next"`
	Results []T     `json:"results"`
	Count   int     `json:"count"`
}

// identified is a wire object with an id.
type identified interface{ objectID() int }

// sweep reads every object a list query matches, page by page, in
// NetBox's cursor mode: each page holds the objects from a primary key on,
// ordered by it, and the next page starts past the last key read. Unlike
// offsets, keys do not shift when objects are written meanwhile, so no
// object is read twice or skipped for that. Each page is checked to go on
// exactly where the last one ended (ascending keys from the start asked
// for), so a server that ignored the cursor is an error, never a list
// with holes. A page shorter than the limit is the last: NetBox then
// gives no next link.
func sweep[T any, PT interface {
	*T
	identified
}](ctx context.Context, c *Client, path string, query url.Values, t *httpapi.Tally) ([]T, error) {
	q := url.Values{}
	for k, v := range query {
		q[k] = v
	}
	q.Set("limit", strconv.Itoa(c.cfg.PageSize))
	q.Del("offset")
	start := 0
	var out []T
	for pages := 0; ; pages++ {
		q.Set("start", strconv.Itoa(start))
		var p page[T]
		r := httpapi.Request{Method: http.MethodGet, Path: path, Query: q, Tally: t,
			Decode: func(b []byte) error { p = page[T]{}; return decode(b, &p) }}
		resp, err := c.api.Do(ctx, r)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", path, err)
		}
		if resp.Status != http.StatusOK {
			return nil, fmt.Errorf("list %s: %w", path, r.Error(resp))
		}
		last := start - 1
		for i := range p.Results {
			id := PT(&p.Results[i]).objectID()
			if id <= last {
				return nil, fmt.Errorf("list %s: object %d came after %d: the server does not page by key (is it NetBox 4.6 or later?)", path, id, last)
			}
			last = id
		}
		out = append(out, p.Results...)
		if pages > 0 || p.Next != nil {
			c.progress.Add(readLabel(path), len(p.Results))
		}
		if p.Next == nil || *p.Next == "" {
			return out, nil
		}
		// The next link is followed by its cursor on our own base URL:
		// behind a proxy NetBox may build links with another scheme or
		// host, and the token must not go anywhere else.
		next, err := url.Parse(*p.Next)
		if err != nil {
			return nil, fmt.Errorf("list %s: bad next link %q: %w", path, *p.Next, err)
		}
		s, err := strconv.Atoi(next.Query().Get("start"))
		if err != nil || len(p.Results) == 0 || s != last+1 {
			return nil, fmt.Errorf("list %s: next link %q does not go on after object %d", path, *p.Next, last)
		}
		if l := next.Query().Get("limit"); l != "" {
			q.Set("limit", l) // NetBox caps the limit at its MAX_PAGE_SIZE
		}
		start = s
	}
}

// readLabel names a list for progress: "read netbox vlans".
func readLabel(path string) string {
	p := strings.Trim(path, "/")
	return "read netbox " + p[strings.LastIndexByte(p, '/')+1:]
}

// idsPerRead keeps a read by ids short enough for the proxies in front
// of NetBox.
const idsPerRead = 100

// byIDs fetches the objects with the given ids.
func byIDs[T any, PT interface {
	*T
	identified
}](ctx context.Context, c *Client, path string, ids []int, query url.Values, t *httpapi.Tally) ([]T, error) {
	var out []T
	for chunk := range slices.Chunk(ids, idsPerRead) {
		q := url.Values{}
		for _, id := range chunk {
			q.Add("id", strconv.Itoa(id))
		}
		got, err := sweep[T, PT](ctx, c, path, httpapi.With(query, q), t)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}
