package netbox

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/sot"
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
	ID      int       `json:"id"`
	Time    time.Time `json:"time"`
	Action  choice    `json:"action"`
	Type    string    `json:"changed_object_type"` // "ipam.vlan"
	Changed int       `json:"changed_object_id"`
	// Repr is the object as text when the change was made; for the
	// lookups ipsync names by name, their name after the change.
	Repr string `json:"object_repr"`
}

func (w *wireChange) ObjectID() int { return w.ID }

func (w *wireChange) entry() changelog.Entry {
	return changelog.Entry{ID: strconv.Itoa(w.ID), Time: w.Time, Type: w.Type, ObjectID: strconv.Itoa(w.Changed),
		Name: w.Repr, Deleted: w.Action.Value == "delete"}
}

// changeLog is NetBox's change log as a changelog.Log. Its
// changed_object_type filter takes several "app.model" values, so the log
// is read for the followed types alone.
type changeLog struct {
	c *Client
	t *httpapi.Tally
}

// changes is the change log as the engine reads it.
func (c *Client) changes() sot.ChangeLog[wireChange] {
	t := &httpapi.Tally{}
	return sot.ChangeLog[wireChange]{D: &changeLog{c: c, t: t}, Pager: c.pager(), Path: pathObjectChanges, Tally: t}
}

var _ sot.LogDialect[wireChange] = (*changeLog)(nil)

// Filter selects the types by name; with none, there is nothing to read
// (no filter would read the whole log).
func (l *changeLog) Filter(_ context.Context, types []string) (url.Values, bool, error) {
	return url.Values{"changed_object_type": types, "fields": {changeFields}}, len(types) == 0, nil
}

func (l *changeLog) Newest() url.Values          { return url.Values{"ordering": {"-time"}} }
func (l *changeLog) From(t time.Time) url.Values { return url.Values{timeFilter: {micros(t)}} }

// Before is the changes before t: NetBox's time_before is inclusive.
func (l *changeLog) Before(t time.Time) url.Values {
	return url.Values{beforeFilter: {micros(t.Add(-time.Microsecond))}}
}

func (l *changeLog) Entry(w *wireChange) changelog.Entry { return w.entry() }

func (l *changeLog) Sweep(ctx context.Context, q url.Values) ([]wireChange, error) {
	return sweep[wireChange](ctx, l.c, pathObjectChanges, q, l.t)
}
