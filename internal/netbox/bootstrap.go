package netbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/ownership"
	"github.com/ipsync/ipsync/internal/sot"
)

// Bootstrap creates what ipsync's marker needs in NetBox, if missing: the
// marker tag and the owner and VNI custom fields, for the object types
// ipsync writes. Existing ones get missing object types added (a tag with
// no object types may be used on any, and is left so). It returns what it
// created or extended, e.g. `tag "managed-by-ipsync"`; a second run
// returns nothing.
func (c *Client) Bootstrap(ctx context.Context) ([]string, error) {
	return c.bootstrap(ctx, true)
}

// BootstrapPlan returns what Bootstrap would create or extend, writing
// nothing.
func (c *Client) BootstrapPlan(ctx context.Context) ([]string, error) {
	return c.bootstrap(ctx, false)
}

// marker is one object the marker needs, found by its name.
type marker struct {
	path, what, name string
	create           map[string]any
	wantType         string // a custom field's type
	types            []string
}

// wireMarker is a tag or custom field as bootstrap reads it.
type wireMarker struct {
	ID          int      `json:"id"`
	Name        string   `json:"name"`
	Type        *choice  `json:"type"`
	FilterLogic *choice  `json:"filter_logic"` // a custom field's
	ObjectTypes []string `json:"object_types"`
}

func (m *wireMarker) ObjectID() int { return m.ID }

func (c *Client) markers() []marker {
	var types []string
	for _, k := range sot.Kinds() {
		ep, _ := endpointOf(k)
		types = append(types, ep.ot)
	}
	return []marker{
		{pathTags, "tag", c.cfg.Tag,
			map[string]any{"name": c.cfg.Tag, "slug": Slug(c.cfg.Tag), "color": "00bcd4", "description": "Managed by ipsync; do not edit by hand."}, "", types},
		{pathCustomFields, "custom field", c.cfg.OwnerField,
			map[string]any{"name": c.cfg.OwnerField, "label": "ipsync owner", "type": "text", "filter_logic": "exact",
				"description": "The ipsync owner (static:<spec> or neutron:<site>) of this object."}, "text", types},
		{pathCustomFields, "custom field", c.cfg.VNIField,
			map[string]any{"name": c.cfg.VNIField, "label": "VNI", "type": "integer", "filter_logic": "exact",
				"description": "VXLAN/Geneve segment id of the prefix's network."}, "integer", []string{"ipam.prefix"}},
	}
}

func (c *Client) bootstrap(ctx context.Context, commit bool) ([]string, error) {
	t := &httpapi.Tally{}
	var done []string
	for _, m := range c.markers() {
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

// ensure creates m if it does not exist, or adds object types it lacks,
// and says which; with commit false it only says.
func (c *Client) ensure(ctx context.Context, t *httpapi.Tally, m marker, commit bool) (string, error) {
	fields := "id,name,type,object_types"
	if m.path == pathCustomFields {
		fields += ",filter_logic"
	}
	got, err := sweep[wireMarker](ctx, c, m.path, url.Values{"name": {m.name}, "fields": {fields}}, t)
	if err != nil {
		return "", err
	}
	i := slices.IndexFunc(got, func(e wireMarker) bool { return e.Name == m.name })
	if i < 0 {
		m.create["object_types"] = m.types
		what := fmt.Sprintf("%s %q", m.what, m.name)
		if !commit {
			return what, nil
		}
		// A create retried after a lost answer looks first whether the
		// lost attempt made it.
		exists := func(ctx context.Context) (bool, error) {
			got, err := sweep[wireMarker](ctx, c, m.path, url.Values{"name": {m.name}, "fields": {"id,name"}}, t)
			return slices.ContainsFunc(got, func(e wireMarker) bool { return e.Name == m.name }), err
		}
		return what, c.write(ctx, t, http.MethodPost, m.path, m.create, exists)
	}
	e := got[i]
	if m.wantType != "" && (e.Type == nil || e.Type.Value != m.wantType) {
		return "", fmt.Errorf("exists with another type than %s; fix it in netbox", m.wantType)
	}
	if m.name == c.cfg.OwnerField && m.path == pathCustomFields && e.FilterLogic != nil {
		if err := (ownership.Marker{Tag: c.cfg.Tag, OwnerField: c.cfg.OwnerField}).ExactOwner("NetBox", e.FilterLogic.Value); err != nil {
			return "", err
		}
	}
	if m.path == pathTags && len(e.ObjectTypes) == 0 {
		return "", nil // a tag without object types may be used on any
	}
	union := slices.Clone(e.ObjectTypes)
	var added []string
	for _, ot := range m.types {
		if !slices.Contains(union, ot) {
			union = append(union, ot)
			added = append(added, ot)
		}
	}
	if len(added) == 0 {
		return "", nil
	}
	what := fmt.Sprintf("object types %s of %s %q", strings.Join(added, ", "), m.what, m.name)
	if !commit {
		return what, nil
	}
	return what, c.write(ctx, t, http.MethodPatch, fmt.Sprintf("%s%d/", m.path, e.ID), map[string]any{"object_types": union}, nil)
}

// write sends one small write that must succeed. A patch is idempotent;
// a create is skipped on retry when exists finds it made.
func (c *Client) write(ctx context.Context, t *httpapi.Tally, method, path string, body map[string]any, exists func(context.Context) (bool, error)) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	r := httpapi.Request{Method: method, Path: path, Tally: t,
		Body: func(ctx context.Context, _ int, maybeSent bool) ([]byte, bool, error) {
			if maybeSent && exists != nil {
				ok, err := exists(ctx)
				return raw, ok, err
			}
			return raw, false, nil
		}}
	resp, err := c.api.Do(ctx, r)
	if errors.Is(err, httpapi.ErrSkipped) {
		return nil
	}
	if err != nil {
		return err
	}
	if resp.Status >= 300 {
		return r.Error(resp)
	}
	return nil
}
