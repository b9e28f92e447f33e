package netbox

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"slices"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/sot"
)

// Bootstrap creates what ipsync's marker needs in NetBox, if missing: the
// marker tag and the owner and VNI custom fields, for the object types
// ipsync writes. Existing ones get missing object types added (a tag with
// no object types may be used on any, and is left so). It returns what it
// created or extended, e.g. `tag "managed-by-ipsync"`; a second run
// returns nothing.
func (c *Client) Bootstrap(ctx context.Context) ([]string, error) {
	return sot.Bootstrap(ctx, bootstrapper{c}, "NetBox", true)
}

// BootstrapPlan returns what Bootstrap would create or extend, writing
// nothing.
func (c *Client) BootstrapPlan(ctx context.Context) ([]string, error) {
	return sot.Bootstrap(ctx, bootstrapper{c}, "NetBox", false)
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

// bootstrapper finds the marker's objects by name.
type bootstrapper struct{ c *Client }

func (b bootstrapper) Markers(context.Context, *httpapi.Tally) ([]sot.Marker, error) {
	c := b.c
	var types []string
	for _, k := range sot.Kinds() {
		ep, _ := endpointOf(k)
		types = append(types, ep.ot)
	}
	return c.cfg.Markers(sot.MarkerPlace{Tags: pathTags, CustomFields: pathCustomFields, FieldKey: "name", PrefixType: "ipam.prefix",
		TagFields: map[string]any{"slug": Slug(c.cfg.Tag)}}, types), nil
}

func (b bootstrapper) find(ctx context.Context, t *httpapi.Tally, m sot.Marker, fields string) (*wireMarker, error) {
	got, err := sweep[wireMarker](ctx, b.c, m.Path, url.Values{"name": {m.Name}, "fields": {fields}}, t)
	if i := slices.IndexFunc(got, func(e wireMarker) bool { return e.Name == m.Name }); err == nil && i >= 0 {
		return &got[i], nil
	}
	return nil, err
}

func (b bootstrapper) Find(ctx context.Context, t *httpapi.Tally, m sot.Marker) (sot.Found, bool, error) {
	fields := "id,name,type,object_types"
	if m.Path == pathCustomFields {
		fields += ",filter_logic"
	}
	e, err := b.find(ctx, t, m, fields)
	if e == nil || err != nil {
		return sot.Found{}, false, err
	}
	f := sot.Found{ID: itoa(e.ID), Types: e.ObjectTypes}
	if e.Type != nil {
		f.Type = e.Type.Value
	}
	if e.FilterLogic != nil {
		f.FilterLogic = e.FilterLogic.Value
	}
	return f, true, nil
}

// Create writes m; retried after a lost answer, it looks first whether
// the lost attempt made it.
func (b bootstrapper) Create(ctx context.Context, t *httpapi.Tally, m sot.Marker, types []string) error {
	body := maps.Clone(m.Create)
	body["object_types"] = types
	exists := func(ctx context.Context) (bool, error) {
		e, err := b.find(ctx, t, m, "id,name")
		return e != nil, err
	}
	return sot.Write(ctx, b.c.api.Do, t, http.MethodPost, m.Path, body, exists)
}

func (b bootstrapper) Extend(ctx context.Context, t *httpapi.Tally, m sot.Marker, f sot.Found, types []string) error {
	return sot.Write(ctx, b.c.api.Do, t, http.MethodPatch, m.Path+f.ID+"/", map[string]any{"object_types": types}, nil)
}

func (bootstrapper) TypesName() string { return "object types" }

// AnyType: a NetBox tag with no object types may be used on any, and is
// left so.
func (bootstrapper) AnyType(m sot.Marker) bool { return m.Path == pathTags }
