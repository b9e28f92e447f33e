package nautobot

import (
	"context"
	"net/http"

	"github.com/ipsync/ipsync/internal/httpapi"
)

// APIError is an answer from Nautobot that is not a success.
type APIError = httpapi.APIError

// do sends r pinned to the API version chosen when the client connected;
// the first request connects (see connect).
func (c *Client) do(ctx context.Context, r httpapi.Request) (*httpapi.Response, error) {
	s, err := c.connect(ctx)
	if err != nil {
		return nil, err
	}
	h := make(http.Header, len(r.Header)+1)
	for k, v := range r.Header {
		h[k] = v
	}
	h.Set("Accept", "application/json; version="+s.api)
	r.Header = h
	return c.api.Do(ctx, r)
}
