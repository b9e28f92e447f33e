package nautobot

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/url"
	"slices"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sot"
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
	Changed    string          `json:"changed_object_id"`
	Repr       string          `json:"object_repr"`
	ObjectData json.RawMessage `json:"object_data"`
}

func (w *wireChange) ObjectID() string { return w.ID }

func (w wireChange) entry() changelog.Entry {
	h := fnv.New64a()
	h.Write(w.ObjectData)
	return changelog.Entry{ID: w.ID, Time: w.Time, Type: w.Type, ObjectID: w.Changed, Name: w.Repr, Deleted: w.Action.Value == "delete",
		Version: fmt.Sprintf("%s:%x", w.Action.Value, h.Sum64())}
}

type wireContentType struct {
	ID       json.Number `json:"id"`
	AppLabel string      `json:"app_label"`
	Model    string      `json:"model"`
}

func (w *wireContentType) ObjectID() string { return w.ID.String() }

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

// changes is the change log as the engine reads it.
func (c *Client) changes() sot.ChangeLog[wireChange] {
	t := &httpapi.Tally{}
	return sot.ChangeLog[wireChange]{D: &changeLog{c: c, t: t}, Pager: c.pager(), Path: pathObjectChanges, Tally: t}
}

var _ sot.LogDialect[wireChange] = (*changeLog)(nil)

// Filter selects the types by content type id on 3.x; on 2.4 the log is
// read for every type.
func (l *changeLog) Filter(ctx context.Context, types []string) (url.Values, bool, error) {
	q, err := l.typeFilter(ctx, types)
	return httpapi.With(url.Values{"depth": {"0"}}, q), false, err
}

func (l *changeLog) Newest() url.Values { return url.Values{"sort": {"-time"}} }
func (l *changeLog) From(t time.Time) url.Values {
	return url.Values{"time__gte": {changelog.Stamp(t)}}
}
func (l *changeLog) Before(t time.Time) url.Values {
	return url.Values{"time__lt": {changelog.Stamp(t)}}
}
func (l *changeLog) Entry(w *wireChange) changelog.Entry { return w.entry() }

func (l *changeLog) Sweep(ctx context.Context, q url.Values) ([]wireChange, error) {
	return sweepGrowing[wireChange](ctx, l.c, pathObjectChanges, q, l.t)
}
