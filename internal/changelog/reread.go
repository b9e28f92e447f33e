package changelog

import (
	"net/url"
	"slices"

	"github.com/ipsync/ipsync/internal/resource"
)

// ByIDs runs an adapter's read of one kind for a Rereader: once with no
// extra filter when ids is nil (a whole read through the same code), else
// once per chunk of per ids of kind, filtered by them ("id=..."), so that
// URLs stay short enough for the proxies in front of a target.
func ByIDs[T any](ids map[resource.Kind][]string, kind resource.Kind, per int, read func(extra url.Values) ([]T, error)) ([]T, error) {
	if ids == nil {
		return read(nil)
	}
	var out []T
	for chunk := range slices.Chunk(ids[kind], per) {
		got, err := read(url.Values{"id": chunk})
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}
