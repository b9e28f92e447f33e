package nautobot

import (
	"context"
	"net/url"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/sot"
)

type page[T any] = sot.Page[T]

// Nautobot's lists are read by offset, ordered by id (sot.Offset).
func (c *Client) pager() sot.Pager {
	return sot.Pager{Do: c.do, PageSize: c.cfg.PageSize, Progress: c.progress, Server: "nautobot", Decode: c.decode}
}

// sweep reads every object a list query matches (sot.Offset).
func sweep[T any, PT interface {
	*T
	sot.Identified[string]
}](ctx context.Context, c *Client, path string, query url.Values, t *httpapi.Tally) ([]T, error) {
	return sot.Offset[T, string, PT](ctx, c.pager(), path, query, t, false)
}

// sweepGrowing reads a list that only grows while it is read: the change
// log (sot.Offset).
func sweepGrowing[T any, PT interface {
	*T
	sot.Identified[string]
}](ctx context.Context, c *Client, path string, query url.Values, t *httpapi.Tally) ([]T, error) {
	return sot.Offset[T, string, PT](ctx, c.pager(), path, query, t, true)
}

// byIDs fetches the objects with the given ids.
func byIDs[T any, PT interface {
	*T
	sot.Identified[string]
}](ctx context.Context, c *Client, path string, ids []string, t *httpapi.Tally) ([]T, error) {
	return sot.ByIDs(ids, func(q url.Values) ([]T, error) { return sweep[T, PT](ctx, c, path, q, t) })
}
