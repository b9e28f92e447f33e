package nautobot

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/resource"
)

const pathObjectChanges = "/api/extras/object-changes/"

// contentTypes are the content types of the kinds ipsync reads.
func contentTypes() map[string]resource.Kind {
	return map[string]resource.Kind{
		"ipam.namespace": resource.KindNamespace, "ipam.vlangroup": resource.KindVLANGroup, "ipam.vlan": resource.KindVLAN,
		"ipam.prefix": resource.KindPrefix, "ipam.ipaddress": resource.KindIPAddress,
		"nautobot_bgp_models.autonomoussystem": resource.KindASN,
	}
}

// lookupTypes are the content types every object is read through: a change
// of one (a location renamed) changes how objects read without a change
// logged for them.
func lookupTypes() []string {
	return []string{"dcim.location", "dcim.locationtype", "extras.status", "extras.role", "tenancy.tenant", "extras.tag", "extras.customfield"}
}

// namedLookups are the lookup types objects name by the lookup's own name
// alone, with the lookups' kind: a change of one that keeps its name (a
// tag's description, which every renewal of an agent's lease rewrites)
// changes no object. A location's name is its path in the tree, which a
// move changes under the same name; custom fields and location types
// change what objects may hold.
func namedLookups() map[string]resource.Kind {
	return map[string]resource.Kind{"extras.status": resource.RefStatus, "extras.role": resource.RefRole,
		"tenancy.tenant": resource.RefTenant, "extras.tag": refTag}
}

// wireChange is an object-changes record. object_data is only hashed: it
// tells a record Nautobot rewrote in place from the one already seen.
type wireChange struct {
	ID     string    `json:"id"`
	Time   time.Time `json:"time"`
	Action struct {
		Value string `json:"value"`
	} `json:"action"`
	Type       string          `json:"changed_object_type"`
	ObjectID   string          `json:"changed_object_id"`
	Repr       string          `json:"object_repr"`
	ObjectData json.RawMessage `json:"object_data"`
}

func (w *wireChange) objectID() string { return w.ID }

func (w wireChange) entry() changelog.Entry {
	h := fnv.New64a()
	h.Write(w.ObjectData)
	return changelog.Entry{ID: w.ID, Time: w.Time, Type: w.Type, ObjectID: w.ObjectID, Name: w.Repr, Deleted: w.Action.Value == "delete",
		Version: fmt.Sprintf("%s:%x", w.Action.Value, h.Sum64())}
}

type wireContentType struct {
	ID       json.Number `json:"id"`
	AppLabel string      `json:"app_label"`
	Model    string      `json:"model"`
}

func (w *wireContentType) objectID() string { return w.ID.String() }

// changeLog is Nautobot's object-changes as a changelog.Log. On 3.x it
// filters by content type id, which takes many; changed_object_type takes
// one, and on 2.4 the _id form too, so there the log is read for every type
// and the cursor keeps the followed ones (checked on 2.4.44 and 3.2.7).
type changeLog struct {
	c *Client
	t *httpapi.Tally

	ids map[string]string // content type "app.model" -> id, read once
}

// typeFilter is the query selecting types, nil where the server cannot
// select several.
func (l *changeLog) typeFilter(ctx context.Context, types []string) (url.Values, error) {
	s, err := l.c.connect(ctx)
	if err != nil {
		return nil, err
	}
	if s.version.less(serverVersion{3, 0, 0}) {
		return nil, nil
	}
	ids, err := l.typeIDs(ctx, types)
	if err != nil {
		return nil, err
	}
	return url.Values{"changed_object_type_id": ids}, nil
}

func (l *changeLog) typeIDs(ctx context.Context, types []string) ([]string, error) {
	if l.ids == nil {
		got, err := sweep[wireContentType](ctx, l.c, "/api/extras/content-types/", nil, l.t)
		if err != nil {
			return nil, fmt.Errorf("read content types: %w", err)
		}
		l.ids = make(map[string]string, len(got))
		for _, ct := range got {
			l.ids[ct.AppLabel+"."+ct.Model] = ct.ID.String()
		}
	}
	var out []string
	for _, typ := range types {
		// A plugin not installed (BGP models) has no type and no changes.
		if id, ok := l.ids[typ]; ok {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out, nil
}

// Newest is the newest entry of types, or on 2.4 of any type: as good a
// place to start from.
func (l *changeLog) Newest(ctx context.Context, types []string) (changelog.Entry, bool, error) {
	q, err := l.typeFilter(ctx, types)
	if err != nil {
		return changelog.Entry{}, false, err
	}
	q = httpapi.With(url.Values{"sort": {"-time"}, "limit": {"1"}, "depth": {"0"}}, q)
	var p page[wireChange]
	r := httpapi.Request{Method: http.MethodGet, Path: pathObjectChanges, Query: q, Tally: l.t,
		Decode: func(b []byte) error { p = page[wireChange]{}; return decode(b, &p) }}
	resp, err := l.c.do(ctx, r)
	if err != nil {
		return changelog.Entry{}, false, fmt.Errorf("newest change: %w", err)
	}
	if resp.Status != http.StatusOK {
		return changelog.Entry{}, false, fmt.Errorf("newest change: %w", r.Error(resp))
	}
	if len(p.Results) == 0 {
		return changelog.Entry{}, false, nil
	}
	return p.Results[0].entry(), true, nil
}

func (l *changeLog) Since(ctx context.Context, types []string, t time.Time) ([]changelog.Entry, error) {
	q, err := l.typeFilter(ctx, types)
	if err != nil {
		return nil, err
	}
	q = httpapi.With(url.Values{}, q)
	if !t.IsZero() {
		q.Set("time__gte", changelog.Stamp(t))
	}
	got, err := sweepGrowing[wireChange](ctx, l.c, pathObjectChanges, q, l.t)
	if err != nil {
		return nil, err
	}
	out := make([]changelog.Entry, 0, len(got))
	for _, w := range got {
		out = append(out, w.entry())
	}
	return out, nil
}

// Count counts the entries Since would return between from and to, or
// their deletes.
func (l *changeLog) Count(ctx context.Context, types []string, from, to time.Time, deletes bool) (int, error) {
	q, err := l.typeFilter(ctx, types)
	if err != nil {
		return 0, err
	}
	q = httpapi.With(url.Values{"limit": {"1"}, "depth": {"0"}, "time__lt": {changelog.Stamp(to)}}, q)
	if !from.IsZero() {
		q.Set("time__gte", changelog.Stamp(from))
	}
	if deletes {
		q.Set("action", "delete")
	}
	var p page[wireChange]
	r := httpapi.Request{Method: http.MethodGet, Path: pathObjectChanges, Query: q, Tally: l.t,
		Decode: func(b []byte) error { p = page[wireChange]{}; return decode(b, &p) }}
	resp, err := l.c.do(ctx, r)
	if err != nil {
		return 0, fmt.Errorf("count changes: %w", err)
	}
	if resp.Status != http.StatusOK {
		return 0, fmt.Errorf("count changes: %w", r.Error(resp))
	}
	return p.Count, nil
}
