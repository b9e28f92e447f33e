package changelog

import (
	"maps"
	"net/url"
	"slices"
	"time"

	"github.com/ipsync/ipsync/internal/resource"
)

// Select is which of the scope's objects a read returns: every one (the
// zero Select), those with the given ids (a reread of changed objects),
// or those stamped at or after a time (the check of a view).
type Select struct {
	IDs   map[resource.Kind][]string
	Since map[resource.Kind]time.Time
}

// Wants reports whether the read returns any object of k.
func (s Select) Wants(k resource.Kind) bool {
	switch {
	case s.IDs != nil:
		return len(s.IDs[k]) > 0
	case s.Since != nil:
		_, ok := s.Since[k]
		return ok
	}
	return true
}

// Among are the kinds of kinds the read returns objects of.
func (s Select) Among(kinds []resource.Kind) []resource.Kind {
	return slices.DeleteFunc(slices.Clone(kinds), func(k resource.Kind) bool { return !s.Wants(k) })
}

// StampFilter selects the objects stamped (last_updated) at or after a
// time, in Nautobot and NetBox alike.
const StampFilter = "last_updated__gte"

// Stamp is how a target's filters take a time.
func Stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Read runs an adapter's read of one kind for s: once with no extra
// filter for every object (a whole read through the same code) or for
// those stamped at or after a time, else once per chunk of per ids of
// kind, filtered by them ("id=..."), so that URLs stay short enough for
// the proxies in front of a target.
func Read[T any](s Select, kind resource.Kind, per int, read func(extra url.Values) ([]T, error)) ([]T, error) {
	switch {
	case s.IDs != nil:
		var out []T
		for chunk := range slices.Chunk(s.IDs[kind], per) {
			got, err := read(url.Values{"id": chunk})
			if err != nil {
				return nil, err
			}
			out = append(out, got...)
		}
		return out, nil
	case s.Since != nil && !s.Since[kind].IsZero():
		return read(url.Values{StampFilter: {Stamp(s.Since[kind])}})
	}
	return read(nil)
}

// Unfound narrows extra, the filter of a reread by ids ("id=..."), to the
// ids that the read of the scope did not return: only those can be the
// owner's objects outside the scope, which a second read by the owner
// looks for. ok is false when that read is not needed: every id was
// found. A filter without ids (a whole read, or the check of a view by
// stamp) is returned as it is.
func Unfound(extra url.Values, found func(yield func(string) bool)) (narrowed url.Values, ok bool) {
	ids, byID := extra["id"]
	if !byID {
		return extra, true
	}
	got := map[string]bool{}
	for id := range found {
		got[id] = true
	}
	rest := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return got[id] })
	if len(rest) == 0 {
		return nil, false
	}
	narrowed = maps.Clone(extra)
	narrowed["id"] = rest
	return narrowed, true
}
