package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// products are the servers ipsync writes to, by the key of their
// version in /api/status/, and as people write their names.
var products = []struct{ server, name, key string }{
	{"nautobot", "Nautobot", "nautobot-version"},
	{"netbox", "NetBox", "netbox-version"},
}

// Product reads which server a body of /api/status/ comes from: its
// server name as the config writes it ("nautobot", "netbox") and its
// version; "" for neither. NetBox refuses a token it cannot use in words
// of its own, naming its token versions, which tell it apart without a
// working token.
func Product(status []byte) (server, version string) {
	var st map[string]any
	if json.Unmarshal(status, &st) != nil {
		return "", ""
	}
	for _, p := range products {
		if v, ok := st[p.key].(string); ok && v != "" {
			return p.server, v
		}
	}
	if d, _ := st["detail"].(string); d == "Invalid v1 token" || d == "Invalid v2 token" {
		return "netbox", ""
	}
	return "", ""
}

// WrongServerError is a config section pointed at the other kind of
// server: a Nautobot under netbox.url, or a NetBox under nautobot.url.
type WrongServerError struct {
	URL     string
	Want    string // the config's section: "nautobot"
	Got     string // what answered: "netbox"
	Version string
}

func (e *WrongServerError) Error() string {
	got := productName(e.Got)
	if e.Version != "" {
		got += " " + e.Version
	}
	return fmt.Sprintf("%s looks like %s, not %s: point %s.url at a %s, or write to it as %s (target: %s, and a %s section)",
		e.URL, got, productName(e.Want), e.Want, productName(e.Want), productName(e.Got), e.Got, e.Got)
}

func productName(server string) string {
	for _, p := range products {
		if p.server == server {
			return p.name
		}
	}
	return server
}

// WrongServer is the error for a server that answered /api/status/ with
// status, when the config expected c's server; nil if it is that server
// or says nothing of what it is.
func (c *Client) WrongServer(status []byte) error {
	got, version := Product(status)
	if got == "" || got == c.cfg.Server {
		return nil
	}
	return &WrongServerError{URL: c.cfg.Base.String(), Want: c.cfg.Server, Got: got, Version: version}
}

// identify asks, once, the server that answered a request 404 or 400
// what it is: a path or a filter every server of c's kind has, unknown
// to this one, is the first sign of a config pointed at the other kind.
// Its error, when the server is another, is kept and returned for every
// later 404 and 400.
func (c *Client) identify(ctx context.Context) error {
	c.identMu.Lock()
	defer c.identMu.Unlock()
	if c.identified {
		return c.identErr
	}
	target := *c.cfg.Base
	target.Path += "/api/status/"
	resp, _, err := c.once(ctx, Request{Method: http.MethodGet, Path: "/api/status/"}, target.String(), nil)
	c.sent.Add(1)
	if err != nil || resp.Status != http.StatusOK {
		return nil // not known: the 404 stands, and the next one asks again
	}
	c.identified, c.identErr = true, c.WrongServer(resp.Body)
	return c.identErr
}
