package nautobot

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

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
	return c.bootstrap(ctx, true)
}

// BootstrapPlan returns what Bootstrap would create or extend, writing
// nothing.
func (c *Client) BootstrapPlan(ctx context.Context) ([]string, error) {
	return c.bootstrap(ctx, false)
}

// marker is one object the marker needs. It is found by listing path
// with lookup and keeping the one whose keyField (a tag's name, a custom
// field's key) is exactly name: a lookup narrows, it never decides.
// Custom fields have no key filter in any Nautobot version (strict
// filtering answers 400 to one), so they are listed whole; there are few.
type marker struct {
	path, what, name string
	lookup           url.Values
	keyField         string
	create           map[string]any
	wantType         string // a custom field's type
	cts              []string
}

func (c *Client) markers(ctx context.Context, t *httpapi.Tally) ([]marker, error) {
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
	return []marker{
		{pathTags, "tag", c.cfg.Tag, url.Values{"name": {c.cfg.Tag}}, "name",
			map[string]any{"name": c.cfg.Tag, "color": "00bcd4", "description": "Managed by ipsync; do not edit by hand."}, "", cts},
		{pathCustomFields, "custom field", c.cfg.OwnerField, nil, "key",
			map[string]any{"key": c.cfg.OwnerField, "label": "ipsync owner", "type": "text", "filter_logic": "exact",
				"description": "The ipsync owner (static:<spec> or neutron:<site>) of this object."}, "text", cts},
		{pathCustomFields, "custom field", c.cfg.VNIField, nil, "key",
			map[string]any{"key": c.cfg.VNIField, "label": "VNI", "type": "integer", "filter_logic": "exact",
				"description": "VXLAN/Geneve segment id of the prefix's network."}, "integer", []string{"ipam.prefix"}},
	}, nil
}

func (c *Client) bootstrap(ctx context.Context, commit bool) ([]string, error) {
	t := &httpapi.Tally{}
	ms, err := c.markers(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	var done []string
	for _, m := range ms {
		what, err := c.ensure(ctx, t, m, commit)
		if err != nil {
			return done, fmt.Errorf("bootstrap %s %q: %w", m.what, m.name, err)
		}
		if what != "" {
			done = append(done, what)
		}
	}
	return done, nil
}

// ensure creates m if the lookup finds none, or adds content types it
// lacks, and says which; with commit false it only says.
func (c *Client) ensure(ctx context.Context, t *httpapi.Tally, m marker, commit bool) (string, error) {
	got, err := sweep[wireMarker](ctx, c, m.path, m.lookup, t)
	if err != nil {
		return "", err
	}
	i := slices.IndexFunc(got, func(e wireMarker) bool {
		if m.keyField == "key" {
			return e.Key == m.name
		}
		return e.Name == m.name
	})
	if i < 0 {
		m.create["content_types"] = m.cts
		what := fmt.Sprintf("%s %q", m.what, m.name)
		if !commit {
			return what, nil
		}
		return what, c.write(ctx, t, http.MethodPost, m.path, m.create)
	}
	e := got[i]
	if m.wantType != "" && (e.Type == nil || e.Type.Value != m.wantType) {
		return "", fmt.Errorf("exists with another type than %s; fix it in Nautobot", m.wantType)
	}
	if m.name == c.cfg.OwnerField && m.path == pathCustomFields && e.FilterLogic != nil {
		if err := c.ownerMarker().ExactOwner("Nautobot", e.FilterLogic.Value); err != nil {
			return "", err
		}
	}
	union := slices.Clone(e.ContentTypes)
	var added []string
	for _, ct := range m.cts {
		if !slices.Contains(union, ct) {
			union = append(union, ct)
			added = append(added, ct)
		}
	}
	if len(added) == 0 {
		return "", nil
	}
	what := fmt.Sprintf("content types %s of %s %q", strings.Join(added, ", "), m.what, m.name)
	if !commit {
		return what, nil
	}
	return what, c.write(ctx, t, http.MethodPatch, m.path+e.ID+"/", map[string]any{"content_types": union})
}

// write sends one small write that must succeed. Bootstrap's writes are
// idempotent by the lookup before them, so retrying them is safe.
func (c *Client) write(ctx context.Context, t *httpapi.Tally, method, path string, body map[string]any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	r := httpapi.Request{Method: method, Path: path, Tally: t,
		Body: func(context.Context, int, bool) ([]byte, bool, error) { return raw, false, nil }}
	resp, err := c.do(ctx, r)
	if err != nil {
		return err
	}
	if resp.Status >= 300 {
		return r.Error(resp)
	}
	return nil
}

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
