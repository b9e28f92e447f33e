package nautobot

import (
	"context"
	"net/url"

	"github.com/ipsync/ipsync/internal/httpapi"
)

// Call sends one JSON request to path (below the base URL) with the
// client's token, version pin, TLS settings, timeouts and retries, for
// callers that need an endpoint List and Apply do not cover (the agent's
// lease). It returns the answer's status; a status of 300 or more is also
// returned as an *APIError. out, when set, receives a 2xx body.
func (c *Client) Call(ctx context.Context, method, path string, query url.Values, in, out any) (int, error) {
	return httpapi.Call(ctx, c.do, method, path, query, in, out)
}
