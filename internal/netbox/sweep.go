package netbox

import (
	"context"
	"net/url"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/sot"
)

type page[T any] = sot.Page[T]

// NetBox's lists are read in its cursor mode, by primary key (sot.Cursor).
func (c *Client) pager() sot.Pager {
	return sot.Pager{Do: c.api.Do, PageSize: c.cfg.PageSize, Progress: c.progress, Server: "netbox", Decode: c.decode}
}

// sweep reads every object a list query matches (sot.Cursor).
func sweep[T any, PT interface {
	*T
	sot.Identified[int]
}](ctx context.Context, c *Client, path string, query url.Values, t *httpapi.Tally) ([]T, error) {
	return sot.Cursor[T, PT](ctx, c.pager(), path, query, t)
}

// byIDs fetches the objects with the given ids.
func byIDs[T any, PT interface {
	*T
	sot.Identified[int]
}](ctx context.Context, c *Client, path string, ids []int, query url.Values, t *httpapi.Tally) ([]T, error) {
	return sot.ByIDs(ids, func(q url.Values) ([]T, error) { return sweep[T, PT](ctx, c, path, httpapi.With(query, q), t) })
}
