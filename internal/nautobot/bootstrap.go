package nautobot

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"slices"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sot"
)

// Bootstrap creates what ipsync's marker needs in Nautobot, if missing:
// the marker tag and the owner and VNI custom fields, for the content
// types ipsync writes (autonomous systems only when the BGP plugin is
// installed). Existing ones get missing content types added. It returns
// what it created or extended, e.g. `tag "managed-by-ipsync"`; a second
// run returns nothing.
func (c *Client) Bootstrap(ctx context.Context) ([]string, error) {
	return sot.Bootstrap(ctx, bootstrapper{c}, "Nautobot", true)
}

// BootstrapPlan returns what Bootstrap would create or extend, writing
// nothing.
func (c *Client) BootstrapPlan(ctx context.Context) ([]string, error) {
	return sot.Bootstrap(ctx, bootstrapper{c}, "Nautobot", false)
}

// bootstrapper finds the marker's objects: a tag by its name, custom
// fields listed whole and matched by key. Custom fields have no key
// filter in any Nautobot version (strict filtering answers 400 to one);
// there are few.
type bootstrapper struct{ c *Client }

func (b bootstrapper) Markers(ctx context.Context, t *httpapi.Tally) ([]sot.Marker, error) {
	c := b.c
	var cts []string
	for _, k := range sot.Kinds() {
		ep, _ := endpointOf(k)
		if k == resource.KindASN {
			ok, err := c.hasBGP(ctx, t)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		cts = append(cts, ep.ct)
	}
	return c.cfg.Markers(sot.MarkerPlace{Tags: pathTags, CustomFields: pathCustomFields, FieldKey: "key", PrefixType: "ipam.prefix"}, cts), nil
}

func (b bootstrapper) Find(ctx context.Context, t *httpapi.Tally, m sot.Marker) (sot.Found, bool, error) {
	var lookup url.Values
	if m.Path == pathTags {
		lookup = url.Values{"name": {m.Name}}
	}
	got, err := sweep[wireMarker](ctx, b.c, m.Path, lookup, t)
	if err != nil {
		return sot.Found{}, false, err
	}
	i := slices.IndexFunc(got, func(e wireMarker) bool {
		if m.Path == pathCustomFields {
			return e.Key == m.Name
		}
		return e.Name == m.Name
	})
	if i < 0 {
		return sot.Found{}, false, nil
	}
	e := got[i]
	return sot.Found{ID: e.ID, Type: e.Type.value(), FilterLogic: e.FilterLogic.value(), Types: e.ContentTypes}, true, nil
}

func (b bootstrapper) Create(ctx context.Context, t *httpapi.Tally, m sot.Marker, types []string) error {
	return sot.Write(ctx, b.c.do, t, http.MethodPost, m.Path, withTypes(m.Create, types), nil)
}

func (b bootstrapper) Extend(ctx context.Context, t *httpapi.Tally, m sot.Marker, f sot.Found, types []string) error {
	return sot.Write(ctx, b.c.do, t, http.MethodPatch, m.Path+f.ID+"/", map[string]any{"content_types": types}, nil)
}

func withTypes(create map[string]any, types []string) map[string]any {
	b := maps.Clone(create)
	b["content_types"] = types
	return b
}

func (bootstrapper) TypesName() string       { return "content types" }
func (bootstrapper) AnyType(sot.Marker) bool { return false }

// hasBGP reports whether the nautobot-bgp-models plugin is installed.
func (c *Client) hasBGP(ctx context.Context, t *httpapi.Tally) (bool, error) {
	ep, _ := endpointOf(resource.KindASN)
	r := httpapi.Request{Method: http.MethodGet, Path: ep.path, Query: url.Values{"limit": {"1"}}, Tally: t}
	resp, err := c.do(ctx, r)
	if err != nil {
		return false, err
	}
	switch resp.Status {
	case http.StatusOK:
		return true, nil
	case http.StatusNotFound:
		return false, nil
	}
	return false, r.Error(resp)
}
