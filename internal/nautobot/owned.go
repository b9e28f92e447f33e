package nautobot

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/sot"
)

// hasBase is a wire object with the common fields.
type hasBase interface{ common() *base }

func (b *base) common() *base { return b }

// sweepScoped reads the objects query matches in the scope, plus the
// owner's objects elsewhere (sot.Scoped).
func sweepScoped[T any, PT interface {
	*T
	hasBase
}](ctx context.Context, r *reading, path string, query, extra url.Values, narrowed bool,
	read func(context.Context, *Client, string, url.Values, *httpapi.Tally) ([]T, error)) ([]T, error) {
	s := sot.Scoped[T]{
		Read:     func(q url.Values) ([]T, error) { return read(ctx, r.c, path, q, r.Tally) },
		Filter:   query,
		Narrowed: narrowed,
		ReadOwned: func(q url.Values) ([]T, error) {
			got, err := read(ctx, r.c, path, q, r.Tally)
			if apiErr, ok := errors.AsType[*APIError](err); ok && apiErr.Status == http.StatusBadRequest {
				// The owner field is not defined for this kind: nothing
				// of it can carry the marker.
				return nil, nil
			}
			return got, err
		},
		ID: func(w *T) string { return PT(w).common().ID },
		Owns: func(w *T) bool {
			meta, _ := r.m.meta(*PT(w).common())
			return meta.Owner == r.Scope.Owner
		},
	}
	if r.Scope.Owner != "" && r.m.managedTag != "" {
		s.Owned = url.Values{"cf_" + r.c.cfg.OwnerField: {string(r.Scope.Owner)}}
	}
	return s.Sweep(extra)
}
