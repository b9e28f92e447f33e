package netbox

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/resource"
)

const pathObjectChanges = "/api/core/object-changes/"

// changeFields are the parts of a change record read: the objects' data
// before and after the change are left out.
const changeFields = "id,time,action,changed_object_type,changed_object_id,object_repr"

// timeFilter is NetBox's filter of records at or after a time. NetBox
// ignores a filter it does not know (time__gte, Nautobot's), which would
// read the whole log.
const timeFilter = "time_after"

// wireChange is a record of NetBox's change log.
type wireChange struct {
	ID       int       `json:"id"`
	Time     time.Time `json:"time"`
	Action   choice    `json:"action"`
	Type     string    `json:"changed_object_type"` // "ipam.vlan"
	ObjectID int       `json:"changed_object_id"`
	// Repr is the object as text when the change was made; for the
	// lookups ipsync names by name, their name after the change.
	Repr string `json:"object_repr"`
}

func (w *wireChange) objectID() int { return w.ID }

func (w *wireChange) entry() changelog.Entry {
	return changelog.Entry{ID: strconv.Itoa(w.ID), Time: w.Time, Type: w.Type, ObjectID: strconv.Itoa(w.ObjectID),
		Deleted: w.Action.Value == "delete"}
}

// after is whether w was recorded after o.
func (w *wireChange) after(o wireChange) bool {
	return w.Time.After(o.Time) || w.Time.Equal(o.Time) && w.ID > o.ID
}

// changeLog is NetBox's change log as a changelog.Log. Its
// changed_object_type filter takes several "app.model" values, so the log
// is read for the followed types alone.
type changeLog struct {
	c *Client
	t *httpapi.Tally
	// byName are the lookup types whose objects are known to other
	// objects by name alone, with the lookups' kind they are kept under.
	byName map[string]resource.Kind
	// newest is the newest record of each such lookup that the last
	// Since read, by type and id.
	newest map[string]map[int]wireChange
}

func (l *changeLog) query(types []string) url.Values {
	return url.Values{"changed_object_type": types, "fields": {changeFields}}
}

// Newest is the newest record of types.
func (l *changeLog) Newest(ctx context.Context, types []string) (changelog.Entry, bool, error) {
	if len(types) == 0 {
		return changelog.Entry{}, false, nil // no filter would read the whole log
	}
	q := l.query(types)
	q.Set("ordering", "-time")
	q.Set("limit", "1")
	var p page[wireChange]
	r := httpapi.Request{Method: http.MethodGet, Path: pathObjectChanges, Query: q, Tally: l.t,
		Decode: func(b []byte) error { p = page[wireChange]{}; return json.Unmarshal(b, &p) }}
	resp, err := l.c.api.Do(ctx, r)
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

// Since reads every record of types at or after t, by the adapter's
// paging: a page that fails or does not go on where the last ended fails
// the read.
func (l *changeLog) Since(ctx context.Context, types []string, t time.Time) ([]changelog.Entry, error) {
	if len(types) == 0 {
		return nil, nil
	}
	q := l.query(types)
	if !t.IsZero() {
		// NetBox keeps microseconds; cutting the rest off keeps t's own
		// records in.
		q.Set(timeFilter, t.UTC().Format("2006-01-02T15:04:05.000000Z07:00"))
	}
	got, err := sweep[wireChange](ctx, l.c, pathObjectChanges, q, l.t)
	if err != nil {
		return nil, err
	}
	l.newest = map[string]map[int]wireChange{}
	out := make([]changelog.Entry, 0, len(got))
	for _, w := range got {
		out = append(out, w.entry())
		l.note(w)
	}
	return out, nil
}

// note keeps w if it is the newest record read of a lookup known by name.
func (l *changeLog) note(w wireChange) {
	if _, ok := l.byName[w.Type]; !ok {
		return
	}
	if l.newest[w.Type] == nil {
		l.newest[w.Type] = map[int]wireChange{}
	}
	if o, ok := l.newest[w.Type][w.ObjectID]; !ok || w.after(o) {
		l.newest[w.Type][w.ObjectID] = w
	}
}

// settle takes out of ch the lookups that still exist under the name lk
// has for them: objects name them by name alone, so however else they
// changed (a tag's description, rewritten by every renewal of the agent's
// lease), every object reads as before. Any other change of a lookup is
// left for the view to refuse.
func (l *changeLog) settle(ch changelog.Changes, lk *lookups) {
	for typ, ids := range ch.Objects {
		kind, ok := l.byName[typ]
		if !ok {
			continue
		}
		for id := range ids {
			n, err := strconv.Atoi(id)
			if err != nil {
				continue
			}
			w, ok := l.newest[typ][n]
			known, had := lk.refs[kind].byID[n]
			if ok && had && w.Action.Value != "delete" && w.Repr == known.Name {
				delete(ids, id)
			}
		}
		if len(ids) == 0 {
			delete(ch.Objects, typ)
		}
	}
}
