package sot

import (
	"net/url"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/httpapi"
)

// Scoped is the read of one kind in a scope: what the scope's filter
// matches, plus, when the filter narrows the read and the scope has an
// owner, that owner's objects elsewhere (an owner's prefix moved out of
// the scope's namespaces is still its own, to delete or move back).
type Scoped[T any] struct {
	// Read sweeps the objects a query matches.
	Read func(url.Values) ([]T, error)
	// Filter narrows the read to the scope; a filter that names nothing
	// (every value unknown) matches nothing and is not sent: strict
	// filtering would refuse it.
	Filter   url.Values
	Narrowed bool
	// Owned is the query of the owner's objects; nil: none to read (no
	// owner, or no marker on this server yet). ReadOwned sweeps it
	// (Read when nil).
	Owned     url.Values
	ReadOwned func(url.Values) ([]T, error)
	// ID and Owns say of a wire object its id and whether it carries the
	// scope owner's marker as read: a server may ignore a filter by a
	// custom field (NetBox, for a kind it is not defined for; a loose
	// filter), so what the owner query returns is checked here.
	ID   func(*T) string
	Owns func(*T) bool
}

// Sweep reads the kind; extra narrows both reads (a reread's ids, of
// which the owner's read asks only for those the first did not return).
func (s Scoped[T]) Sweep(extra url.Values) ([]T, error) {
	var out []T
	empty := false
	for _, v := range s.Filter {
		empty = empty || len(v) == 0
	}
	if !empty {
		got, err := s.Read(httpapi.With(s.Filter, extra))
		if err != nil {
			return nil, err
		}
		out = got
	}
	if !s.Narrowed || s.Owned == nil {
		return out, nil
	}
	extra, unfound := changelog.Unfound(extra, func(yield func(string) bool) {
		for i := range out {
			if !yield(s.ID(&out[i])) {
				return
			}
		}
	})
	if !unfound {
		return out, nil
	}
	read := s.ReadOwned
	if read == nil {
		read = s.Read
	}
	owned, err := read(httpapi.With(s.Owned, extra))
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(out))
	for i := range out {
		seen[s.ID(&out[i])] = true
	}
	for i := range owned {
		if !seen[s.ID(&owned[i])] && s.Owns(&owned[i]) {
			out = append(out, owned[i])
		}
	}
	return out, nil
}
