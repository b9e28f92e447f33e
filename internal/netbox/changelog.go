package netbox

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/httpapi"
)

const pathObjectChanges = "/api/core/object-changes/"

// changeFields are the parts of a change record read: the objects' data
// before and after the change are left out.
const changeFields = "id,time,action,changed_object_type,changed_object_id,object_repr"

// timeFilter is NetBox's filter of records at or after a time, and
// beforeFilter of those at or before one. NetBox ignores a filter it does
// not know (time__gte and time__lt, Nautobot's), which would read the
// whole log.
const (
	timeFilter   = "time_after"
	beforeFilter = "time_before"
)

// micros is t as NetBox's filters take it: NetBox keeps microseconds, and
// cutting the rest off keeps t's own records in.
func micros(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z07:00") }

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
		Name: w.Repr, Deleted: w.Action.Value == "delete"}
}

// changeLog is NetBox's change log as a changelog.Log. Its
// changed_object_type filter takes several "app.model" values, so the log
// is read for the followed types alone.
type changeLog struct {
	c *Client
	t *httpapi.Tally
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
		Decode: func(b []byte) error { p = page[wireChange]{}; return decode(b, &p) }}
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
		q.Set(timeFilter, micros(t))
	}
	got, err := sweep[wireChange](ctx, l.c, pathObjectChanges, q, l.t)
	if err != nil {
		return nil, err
	}
	out := make([]changelog.Entry, 0, len(got))
	for _, w := range got {
		out = append(out, w.entry())
	}
	return out, nil
}

// Count counts the entries Since would return between from and to; NetBox
// takes the end inclusive, and keeps microseconds.
func (l *changeLog) Count(ctx context.Context, types []string, from, to time.Time, deletes bool) (int, error) {
	if len(types) == 0 {
		return 0, nil
	}
	q := l.query(types)
	q.Set("fields", "id")
	q.Set("limit", "1")
	q.Set(beforeFilter, micros(to.Add(-time.Microsecond)))
	if !from.IsZero() {
		q.Set(timeFilter, micros(from))
	}
	if deletes {
		q.Set("action", "delete")
	}
	var p page[wireChange]
	r := httpapi.Request{Method: http.MethodGet, Path: pathObjectChanges, Query: q, Tally: l.t,
		Decode: func(b []byte) error { p = page[wireChange]{}; return decode(b, &p) }}
	resp, err := l.c.api.Do(ctx, r)
	if err != nil {
		return 0, fmt.Errorf("count changes: %w", err)
	}
	if resp.Status != http.StatusOK {
		return 0, fmt.Errorf("count changes: %w", r.Error(resp))
	}
	return p.Count, nil
}
