package sot

import (
	"iter"
	"slices"

	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// Mapped is one kind's wire objects as resource objects.
type Mapped = iter.Seq2[resource.Object, error]

// Map maps ws with f.
func Map[W any, O resource.Object](ws []W, f func(W) (O, error)) Mapped {
	return func(yield func(resource.Object, error) bool) {
		for _, w := range ws {
			if o, err := f(w); !yield(o, err) || err != nil {
				return
			}
		}
	}
}

// MapEach maps ws with f, which cannot fail.
func MapEach[W any, O resource.Object](ws []W, f func(W) O) Mapped {
	return Map(ws, func(w W) (O, error) { return f(w), nil })
}

// Objects are the objects of a read of sc's kinds want, mapped by kinds.
// Namespaces and VLAN groups are read whole: of them it keeps those the
// scope selects and those its owner owns (an owner's namespace moved out
// of the scope's locations is still its own). The other kinds were read
// through the scope's filters.
func Objects(sc scope.Scope, want []resource.Kind, size int, kinds ...Mapped) ([]resource.Object, error) {
	inLocations := func(l string) bool { return len(sc.Locations) == 0 || slices.Contains(sc.Locations, l) }
	out := make([]resource.Object, 0, size)
	for mapped := range slices.Values(kinds) {
		for o, err := range mapped {
			if err != nil {
				return nil, err
			}
			if !slices.Contains(want, o.Kind()) {
				continue
			}
			owned := sc.Owner != "" && o.Meta().Owner == sc.Owner
			switch o := o.(type) {
			case *resource.Namespace:
				if !owned && !((len(sc.Namespaces) == 0 || slices.Contains(sc.Namespaces, o.Name)) && inLocations(o.Location)) {
					continue
				}
			case *resource.VLANGroup:
				if !owned && !inLocations(o.Location) {
					continue
				}
			}
			out = append(out, o)
		}
	}
	return out, nil
}
