package sot

import (
	"context"
	"net/url"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/httpapi"
)

// LogDialect is how one server's object change log is asked, in its
// wire format W.
type LogDialect[W any] interface {
	// Filter is the query of the changes of types; none says that no
	// query can select them and there is nothing to read.
	Filter(ctx context.Context, types []string) (q url.Values, none bool, err error)
	// Newest orders the log newest first.
	Newest() url.Values
	// From selects the changes at or after t, Before those before t.
	From(t time.Time) url.Values
	Before(t time.Time) url.Values
	// Sweep reads every change a query matches, in a log that grows
	// while it is read.
	Sweep(ctx context.Context, q url.Values) ([]W, error)
	// Entry is a change as the follower keeps it.
	Entry(w *W) changelog.Entry
}

// ChangeLog is a server's object change log as a changelog.Log.
type ChangeLog[W any] struct {
	D     LogDialect[W]
	Pager Pager
	Path  string
	Tally *httpapi.Tally
}

var _ changelog.Log = ChangeLog[struct{}]{}

func (l ChangeLog[W]) Newest(ctx context.Context, types []string) (changelog.Entry, bool, error) {
	q, none, err := l.D.Filter(ctx, types)
	if err != nil || none {
		return changelog.Entry{}, false, err
	}
	p, err := Get[W](ctx, l.Pager, "newest change", l.Path, httpapi.With(httpapi.With(q, l.D.Newest()), url.Values{"limit": {"1"}}), l.Tally)
	if err != nil || len(p.Results) == 0 {
		return changelog.Entry{}, false, err
	}
	return l.D.Entry(&p.Results[0]), true, nil
}

func (l ChangeLog[W]) Since(ctx context.Context, types []string, t time.Time) ([]changelog.Entry, error) {
	q, none, err := l.D.Filter(ctx, types)
	if err != nil || none {
		return nil, err
	}
	if !t.IsZero() {
		q = httpapi.With(q, l.D.From(t))
	}
	got, err := l.D.Sweep(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]changelog.Entry, len(got))
	for i := range got {
		out[i] = l.D.Entry(&got[i])
	}
	return out, nil
}

func (l ChangeLog[W]) Count(ctx context.Context, types []string, from, to time.Time, deletes bool) (int, error) {
	q, none, err := l.D.Filter(ctx, types)
	if err != nil || none {
		return 0, err
	}
	q = httpapi.With(httpapi.With(q, l.D.Before(to)), url.Values{"limit": {"1"}})
	if !from.IsZero() {
		q = httpapi.With(q, l.D.From(from))
	}
	if deletes {
		q = httpapi.With(q, url.Values{"action": {"delete"}})
	}
	p, err := Get[W](ctx, l.Pager, "count changes", l.Path, q, l.Tally)
	return p.Count, err
}
