package netbox

import (
	"context"
	"net/url"

	"github.com/ipsync/ipsync/internal/sot"
)

// hasBase is a wire object with the common fields.
type hasBase interface {
	sot.Identified[int]
	common() *base
}

func (b *base) common() *base { return b }

// sweepScoped reads the objects query matches in the scope, plus the
// owner's objects elsewhere (sot.Scoped): found by the owner custom field
// and the marker tag, and kept only where they carry both.
func sweepScoped[T any, PT interface {
	*T
	hasBase
}](ctx context.Context, r *reading, path string, query, extra url.Values, narrowed bool) ([]T, error) {
	s := sot.Scoped[T]{
		Read:     func(q url.Values) ([]T, error) { return sweep[T, PT](ctx, r.c, path, q, r.Tally) },
		Filter:   query,
		Narrowed: narrowed,
		ID:       func(w *T) string { return itoa(PT(w).ObjectID()) },
		Owns: func(w *T) bool {
			meta, _ := r.m.meta(*PT(w).common())
			return meta.Owner == r.Scope.Owner
		},
	}
	if r.Scope.Owner != "" && r.m.tag != 0 {
		s.Owned = url.Values{"fields": query["fields"], "cf_" + r.c.cfg.OwnerField: {string(r.Scope.Owner)}, "tag_id": {itoa(r.m.tag)}}
	}
	return s.Sweep(extra)
}
