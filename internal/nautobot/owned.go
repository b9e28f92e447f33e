package nautobot

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/httpapi"
)

// hasBase is a wire object with the common fields.
type hasBase interface{ common() *base }

func (b *base) common() *base { return b }

// sweepScoped reads the objects query matches, plus, when the query is
// narrowed and the scope has an owner, that owner's objects elsewhere (of
// a reread's ids, those the first read did not return).
// A narrowing filter that names nothing (every value unknown) matches
// nothing, and is not sent: strict filtering would refuse it.
func sweepScoped[T any, PT interface {
	*T
	hasBase
}](ctx context.Context, r *reading, path string, query, extra url.Values, narrowed bool,
	read func(context.Context, *Client, string, url.Values, *httpapi.Tally) ([]T, error)) ([]T, error) {
	var out []T
	empty := false
	for _, v := range query {
		empty = empty || len(v) == 0
	}
	if !empty {
		got, err := read(ctx, r.c, path, httpapi.With(query, extra), r.t)
		if err != nil {
			return nil, err
		}
		out = got
	}
	if !narrowed || r.scope.Owner == "" || r.m.managedTag == "" {
		return out, nil
	}
	extra, unfound := changelog.Unfound(extra, func(yield func(string) bool) {
		for i := range out {
			if !yield(PT(&out[i]).common().ID) {
				return
			}
		}
	})
	if !unfound {
		return out, nil
	}
	q := url.Values{"cf_" + r.c.cfg.OwnerField: {string(r.scope.Owner)}}
	owned, err := read(ctx, r.c, path, httpapi.With(q, extra), r.t)
	if apiErr, ok := errors.AsType[*APIError](err); ok && apiErr.Status == http.StatusBadRequest {
		// The owner field is not defined for this kind: nothing of it
		// can carry the marker.
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(out))
	for i := range out {
		seen[PT(&out[i]).common().ID] = true
	}
	for i := range owned {
		b := PT(&owned[i]).common()
		if meta, _ := r.m.meta(*b); !seen[b.ID] && meta.Owner == r.scope.Owner {
			out = append(out, owned[i])
		}
	}
	return out, nil
}
