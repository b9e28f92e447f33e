package netboxtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Response is one answer of the server, whatever its status.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into out, failing t if it is not JSON of that shape.
func (r Response) JSON(t testing.TB, out any) {
	t.Helper()
	if err := decode(r.Body, out); err != nil {
		t.Fatalf("answer %d: %v", r.Status, err)
	}
}

// Authorization is the header value a NetBox token is sent with: a v2
// token ("nbt_<key>.<secret>") as Bearer, anything else as a v1 Token.
func Authorization(token string) string {
	if strings.HasPrefix(token, "nbt_") {
		return "Bearer " + token
	}
	return "Token " + token
}

// conn sends JSON requests to one base URL with one token.
type conn struct {
	base  string
	token string
	http  *http.Client
}

// do sends one request; path may carry a query, or be a whole URL (a next
// link).
func (c conn) do(method, path string, body any, header http.Header) (Response, error) {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return Response{}, fmt.Errorf("encode the body of %s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(raw)
	}
	u := path
	if !strings.HasPrefix(path, "http://") && !strings.HasPrefix(path, "https://") {
		u = c.base + path
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		return Response{}, err
	}
	req.Header.Set("Authorization", Authorization(c.token))
	for k, vs := range header {
		req.Header[k] = vs
	}
	// An empty Authorization given by the caller is a request without one.
	if req.Header.Get("Authorization") == "" {
		req.Header.Del("Authorization")
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return Response{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return Response{}, fmt.Errorf("read the answer to %s %s: %w", method, path, err)
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: raw}, nil
}

// call is do for an answer that must be 2xx, decoded into out if not nil.
func (c conn) call(method, path string, body, out any) error {
	r, err := c.do(method, path, body, nil)
	if err != nil {
		return err
	}
	if r.Status >= 300 {
		return fmt.Errorf("%s %s: %d %.500s", method, path, r.Status, r.Body)
	}
	if out != nil {
		return decode(r.Body, out)
	}
	return nil
}

// list reads every page of a list path (which may carry a query) by
// following the server's next links.
func (c conn) list(path string) ([]map[string]any, error) {
	var out []map[string]any
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	next := path + sep + "limit=1000"
	for next != "" {
		var page struct {
			Next    *string          `json:"next"`
			Results []map[string]any `json:"results"`
		}
		if err := c.call(http.MethodGet, next, nil, &page); err != nil {
			return nil, err
		}
		out = append(out, page.Results...)
		next = ""
		if page.Next != nil {
			next = *page.Next
		}
	}
	return out, nil
}

func decode(raw []byte, out any) error {
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("decode %.200s: %w", raw, err)
	}
	return nil
}
