package sot

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
)

// logEntry is a change log row of the fake server.
type logEntry struct {
	ID   int    `json:"id"`
	Type string `json:"type"`
	Time string `json:"time"`
}

func (e *logEntry) ObjectID() int { return e.ID }

// fakeLog is a server's change log dialect: types are selected by a
// "type" filter, unless the server cannot select them (none).
type fakeLog struct {
	pager     Pager
	none      bool
	failTypes bool
}

func (l fakeLog) Filter(_ context.Context, types []string) (url.Values, bool, error) {
	if l.failTypes {
		return nil, false, errFake
	}
	return url.Values{"type": types}, l.none, nil
}
func (l fakeLog) Newest() url.Values { return url.Values{"sort": {"-time"}} }
func (l fakeLog) From(t time.Time) url.Values {
	return url.Values{"time__gte": {t.Format(time.RFC3339)}}
}
func (l fakeLog) Before(t time.Time) url.Values {
	return url.Values{"time__lt": {t.Format(time.RFC3339)}}
}
func (l fakeLog) Entry(w *logEntry) changelog.Entry {
	t, _ := time.Parse(time.RFC3339, w.Time)
	return changelog.Entry{ID: strconv.Itoa(w.ID), Type: w.Type, Time: t}
}
func (l fakeLog) Sweep(ctx context.Context, q url.Values) ([]logEntry, error) {
	return Offset[logEntry, int](ctx, l.pager, "/api/changes/", q, nil, true)
}

// changeServer is a log of n entries of type "ipam.vlan", one a minute
// from t0, that answers every query with the entries it selects,
// recording the queries.
func changeServer(t *testing.T, n int) (Pager, func() []url.Values) {
	var mu sync.Mutex
	var asked []url.Values
	p, _, _ := pager(t, 2, func(q url.Values) (int, any) {
		mu.Lock()
		asked = append(asked, q)
		mu.Unlock()
		var rows []logEntry
		for i := range n {
			at := t0.Add(time.Duration(i) * time.Minute)
			if s := q.Get("time__gte"); s != "" && at.Format(time.RFC3339) < s {
				continue
			}
			if s := q.Get("time__lt"); s != "" && at.Format(time.RFC3339) >= s {
				continue
			}
			if ty := q["type"]; !slices.Contains(ty, "ipam.vlan") {
				continue
			}
			rows = append(rows, logEntry{ID: i + 1, Type: "ipam.vlan", Time: at.Format(time.RFC3339)})
		}
		if q.Get("sort") == "-time" {
			slices.Reverse(rows)
		}
		off, _ := strconv.Atoi(q.Get("offset"))
		lim, _ := strconv.Atoi(q.Get("limit"))
		page := rows[min(off, len(rows)):min(off+lim, len(rows))]
		var next any
		if off+lim < len(rows) {
			next = "http://x/api/changes/?offset=" + strconv.Itoa(off+lim)
		}
		return 200, map[string]any{"count": len(rows), "next": next, "results": page}
	})
	return p, func() []url.Values { mu.Lock(); defer mu.Unlock(); return slices.Clone(asked) }
}

func TestChangeLog(t *testing.T) {
	p, asked := changeServer(t, 5)
	l := ChangeLog[logEntry]{D: fakeLog{pager: p}, Pager: p, Path: "/api/changes/"}
	types := []string{"ipam.vlan"}

	e, ok, err := l.Newest(bg, types)
	if err != nil || !ok || e.ID != "5" {
		t.Errorf("Newest = %+v, %v, %v; want entry 5", e, ok, err)
	}
	if q := asked()[0]; q.Encode() != "limit=1&sort=-time&type=ipam.vlan" {
		t.Errorf("Newest asked %s", q.Encode())
	}
	if _, ok, err := l.Newest(bg, []string{"dcim.site"}); ok || err != nil {
		t.Errorf("Newest of an empty log = %v, %v; want none", ok, err)
	}

	all, err := l.Since(bg, types, time.Time{})
	if err != nil || len(all) != 5 || all[0].ID != "1" || !all[4].Time.Equal(t0.Add(4*time.Minute)) {
		t.Errorf("Since(zero) = %+v, %v; want every entry", all, err)
	}
	some, err := l.Since(bg, types, t0.Add(3*time.Minute))
	if err != nil || len(some) != 2 || some[0].ID != "4" {
		t.Errorf("Since(t0+3m) = %+v, %v; want entries 4 and 5", some, err)
	}

	for _, tc := range []struct {
		from, to time.Time
		deletes  bool
		want     int
		query    string
	}{
		{time.Time{}, t0.Add(2 * time.Minute), false, 2, "limit=1&time__lt=2026-01-02T03%3A06%3A05Z&type=ipam.vlan"},
		{t0.Add(time.Minute), t0.Add(10 * time.Minute), false, 4,
			"limit=1&time__gte=2026-01-02T03%3A05%3A05Z&time__lt=2026-01-02T03%3A14%3A05Z&type=ipam.vlan"},
		{t0, t0.Add(time.Hour), true, 5,
			"action=delete&limit=1&time__gte=2026-01-02T03%3A04%3A05Z&time__lt=2026-01-02T04%3A04%3A05Z&type=ipam.vlan"},
	} {
		n := len(asked())
		got, err := l.Count(bg, types, tc.from, tc.to, tc.deletes)
		if err != nil || got != tc.want {
			t.Errorf("Count(%v, %v, %v) = %d, %v; want %d", tc.from, tc.to, tc.deletes, got, err, tc.want)
		}
		if q := asked()[n]; q.Encode() != tc.query {
			t.Errorf("Count asked %s, want %s", q.Encode(), tc.query)
		}
	}
}

// TestChangeLogNone: types no query can select, or a filter that cannot
// be built, ask the server nothing.
func TestChangeLogNone(t *testing.T) {
	for _, d := range []fakeLog{{none: true}, {failTypes: true}} {
		p, asked := changeServer(t, 3)
		d.pager = p
		l := ChangeLog[logEntry]{D: d, Pager: p, Path: "/api/changes/"}
		_, ok, err1 := l.Newest(bg, []string{"ipam.vlan"})
		got, err2 := l.Since(bg, []string{"ipam.vlan"}, time.Time{})
		n, err3 := l.Count(bg, []string{"ipam.vlan"}, time.Time{}, t0, false)
		if ok || got != nil || n != 0 || len(asked()) != 0 {
			t.Errorf("log with %+v: Newest %v, Since %v, Count %d, %d requests; want nothing", d, ok, got, n, len(asked()))
		}
		for _, err := range []error{err1, err2, err3} {
			if (err != nil) != d.failTypes {
				t.Errorf("log with %+v: error %v", d, err)
			}
		}
	}
}

func TestChangeLogFails(t *testing.T) {
	p, _, _ := pager(t, 2, func(url.Values) (int, any) { return 403, `{"detail":"no"}` })
	l := ChangeLog[logEntry]{D: fakeLog{pager: p}, Pager: p, Path: "/api/changes/"}
	if _, _, err := l.Newest(bg, nil); err == nil {
		t.Error("Newest on a refusing server succeeded")
	}
	if _, err := l.Since(bg, nil, t0); err == nil {
		t.Error("Since on a refusing server succeeded")
	}
	if _, err := l.Count(bg, nil, t0, t0, false); err == nil {
		t.Error("Count on a refusing server succeeded")
	}
}
