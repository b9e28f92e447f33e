package sot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/ownership"
)

// Marker is one object ipsync's marker needs in a server: the marker tag
// or a custom field (the owner's, the VNI's).
type Marker struct {
	What, Name string // "tag" or "custom field", and its name or key
	Path       string
	// Create is the body of its create, without its types.
	Create map[string]any
	// Type is a custom field's type; Types are the content (object)
	// types it must be usable on.
	Type  string
	Types []string
	// Owner says the field holds the owner, whose filter must be exact.
	Owner bool
}

// MarkerPlace is where a server keeps the marker's objects: the paths of
// its tags and custom fields, the name it gives a custom field's key
// ("key" on Nautobot, "name" on NetBox), the type of its prefixes, and
// what its tags need besides a name (NetBox: a slug).
type MarkerPlace struct {
	Tags, CustomFields, FieldKey, PrefixType string
	TagFields                                map[string]any
}

// Markers are the objects the marker of s needs at p: the marker tag and
// the owner custom field, usable on types, and the VNI custom field, on
// prefixes.
func (s Settings) Markers(p MarkerPlace, types []string) []Marker {
	tag := map[string]any{"name": s.Tag, "color": "00bcd4", "description": "Managed by ipsync; do not edit by hand."}
	maps.Copy(tag, p.TagFields)
	return []Marker{
		{What: "tag", Name: s.Tag, Path: p.Tags, Types: types, Create: tag},
		{What: "custom field", Name: s.OwnerField, Path: p.CustomFields, Type: "text", Types: types, Owner: true,
			Create: map[string]any{p.FieldKey: s.OwnerField, "label": "ipsync owner", "type": "text", "filter_logic": "exact",
				"description": "The ipsync owner (static:<spec> or neutron:<site>) of this object."}},
		{What: "custom field", Name: s.VNIField, Path: p.CustomFields, Type: "integer", Types: []string{p.PrefixType},
			Create: map[string]any{p.FieldKey: s.VNIField, "label": "VNI", "type": "integer", "filter_logic": "exact",
				"description": "VXLAN/Geneve segment id of the prefix's network."}},
	}
}

// Found is a Marker as the server holds it.
type Found struct {
	ID          string
	Type        string // a custom field's type
	FilterLogic string // a custom field's
	Types       []string
}

// Bootstrapper is how a dialect finds and writes the marker's objects.
type Bootstrapper interface {
	// Markers are the objects the marker needs.
	Markers(ctx context.Context, t *httpapi.Tally) ([]Marker, error)
	// Find reads m as the server holds it; ok is false when it does not.
	Find(ctx context.Context, t *httpapi.Tally, m Marker) (f Found, ok bool, err error)
	// Create writes m, usable on types; Extend makes f usable on types.
	Create(ctx context.Context, t *httpapi.Tally, m Marker, types []string) error
	Extend(ctx context.Context, t *httpapi.Tally, m Marker, f Found, types []string) error
	// TypesName is what the server calls the types: "content types".
	TypesName() string
	// AnyType says whether an object with no types is usable on any
	// (NetBox's tags).
	AnyType(m Marker) bool
}

// Bootstrap creates what the marker needs, if missing, and gives those
// that exist the types they lack. It returns what it created or
// extended, e.g. `tag "managed-by-ipsync"`; a second run returns
// nothing. With commit false it writes nothing and says what it would.
func Bootstrap(ctx context.Context, b Bootstrapper, server string, commit bool) ([]string, error) {
	t := &httpapi.Tally{}
	ms, err := b.Markers(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	var done []string
	for _, m := range ms {
		what, err := ensure(ctx, b, t, m, server, commit)
		if err != nil {
			return done, fmt.Errorf("bootstrap %s %q: %w", m.What, m.Name, err)
		}
		if what != "" {
			done = append(done, what)
		}
	}
	return done, nil
}

func ensure(ctx context.Context, b Bootstrapper, t *httpapi.Tally, m Marker, server string, commit bool) (string, error) {
	f, ok, err := b.Find(ctx, t, m)
	if err != nil {
		return "", err
	}
	if !ok {
		what := fmt.Sprintf("%s %q", m.What, m.Name)
		if !commit {
			return what, nil
		}
		cerr := b.Create(ctx, t, m, m.Types)
		if cerr == nil {
			return what, nil
		}
		// Several agents of a new install bootstrap as they start: one
		// that lost the race to create it finds it made, and goes on.
		if f, ok, err := b.Find(ctx, t, m); err == nil && ok {
			return complete(ctx, b, t, m, f, server, commit)
		}
		return what, cerr
	}
	return complete(ctx, b, t, m, f, server, commit)
}

// complete checks a marker's object found in the server and gives it the
// types it lacks.
func complete(ctx context.Context, b Bootstrapper, t *httpapi.Tally, m Marker, f Found, server string, commit bool) (string, error) {
	if m.Type != "" && f.Type != m.Type {
		return "", fmt.Errorf("exists with another type than %s; fix it in %s", m.Type, server)
	}
	if m.Owner && f.FilterLogic != "" {
		if err := (ownership.Marker{OwnerField: m.Name}).ExactOwner(server, f.FilterLogic); err != nil {
			return "", err
		}
	}
	if len(f.Types) == 0 && b.AnyType(m) {
		return "", nil
	}
	union := slices.Clone(f.Types)
	var added []string
	for _, typ := range m.Types {
		if !slices.Contains(union, typ) {
			union = append(union, typ)
			added = append(added, typ)
		}
	}
	if len(added) == 0 {
		return "", nil
	}
	what := fmt.Sprintf("%s %s of %s %q", b.TypesName(), strings.Join(added, ", "), m.What, m.Name)
	if !commit {
		return what, nil
	}
	return what, b.Extend(ctx, t, m, f, union)
}

// Write sends one small write that must succeed, such as bootstrap's. A
// patch is idempotent; a create whose answer was lost is skipped on its
// retry when exists (if set) finds it made.
func Write(ctx context.Context, do func(context.Context, httpapi.Request) (*httpapi.Response, error), t *httpapi.Tally,
	method, path string, body map[string]any, exists func(context.Context) (bool, error)) error {
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
	resp, err := do(ctx, r)
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
