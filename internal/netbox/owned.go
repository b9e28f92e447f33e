package netbox

import (
	"context"
	"net/url"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/httpapi"
)

// hasBase is a wire object with the common fields.
type hasBase interface {
	identified
	common() *base
}

func (b *base) common() *base { return b }

// sweepScoped reads the objects query matches, plus, when the query is
// narrowed and the scope has an owner, that owner's objects elsewhere.
// A narrowing filter that names nothing (every value unknown) matches
// nothing, and is not sent: NetBox refuses a filter by an unknown id.
// The owner's objects are found by the owner custom field and kept only
// where they carry the marker tag too; NetBox ignores a filter by a
// custom field not defined for the kind, so the kept objects are checked
// either way. extra narrows both reads (a reread's ids; the second read
// asks only for those the first did not return).
func sweepScoped[T any, PT interface {
	*T
	hasBase
}](ctx context.Context, r *reading, path string, query, extra url.Values, narrowed bool) ([]T, error) {
	var out []T
	empty := false
	for _, v := range query {
		empty = empty || len(v) == 0
	}
	if !empty {
		got, err := sweep[T, PT](ctx, r.c, path, httpapi.With(query, extra), r.t)
		if err != nil {
			return nil, err
		}
		out = got
	}
	if !narrowed || r.scope.Owner == "" || r.m.tag == 0 {
		return out, nil
	}
	extra, unfound := changelog.Unfound(extra, func(yield func(string) bool) {
		for i := range out {
			if !yield(itoa(PT(&out[i]).objectID())) {
				return
			}
		}
	})
	if !unfound {
		return out, nil
	}
	q := url.Values{"fields": query["fields"], "cf_" + r.c.cfg.OwnerField: {string(r.scope.Owner)}, "tag_id": {itoa(r.m.tag)}}
	owned, err := sweep[T, PT](ctx, r.c, path, httpapi.With(q, extra), r.t)
	if err != nil {
		return nil, err
	}
	seen := make(map[int]bool, len(out))
	for i := range out {
		seen[PT(&out[i]).objectID()] = true
	}
	for i := range owned {
		b := PT(&owned[i]).common()
		if meta, _ := r.m.meta(*b); !seen[b.ID] && meta.Owner == r.scope.Owner {
			out = append(out, owned[i])
		}
	}
	return out, nil
}
