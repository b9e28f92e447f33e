package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
)

// Call sends one JSON request through do (an adapter's Do, with its
// server's headers): in, when set, is the body; out, when set, receives a
// 2xx body. It returns the answer's status; a status of 300 or more is
// also returned as an *APIError.
func Call(ctx context.Context, do func(context.Context, Request) (*Response, error), method, path string, query url.Values, in, out any) (int, error) {
	r := Request{Method: method, Path: path, Query: query}
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
	resp, err := do(ctx, r)
	if err != nil {
		return 0, err
	}
	if resp.Status >= 300 {
		return resp.Status, r.Error(resp)
	}
	return resp.Status, nil
}
