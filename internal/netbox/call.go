package netbox

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/ipsync/ipsync/internal/httpapi"
)

// Call sends one JSON request to path (below the base URL) with the
// client's token, TLS settings, timeouts and retries, for callers that
// need an endpoint List and Apply do not cover (the agent's lease). It
// returns the answer's status; a status of 300 or more is also returned
// as an *httpapi.APIError. out, when set, receives a 2xx body.
func (c *Client) Call(ctx context.Context, method, path string, query url.Values, in, out any) (int, error) {
	r := httpapi.Request{Method: method, Path: path, Query: query}
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			return 0, fmt.Errorf("encode %s %s: %w", method, path, err)
		}
		r.Body = func(context.Context, int, bool) ([]byte, bool, error) { return raw, false, nil }
	}
	if out != nil {
		r.Decode = func(b []byte) error { return json.Unmarshal(b, out) }
	}
	resp, err := c.api.Do(ctx, r)
	if err != nil {
		return 0, err
	}
	if resp.Status >= 300 {
		return resp.Status, r.Error(resp)
	}
	return resp.Status, nil
}
