package sot

import (
	"context"
	"fmt"
	"net/url"
	"slices"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/parallel"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// Kinds are the kinds a source of truth holds for ipsync, in the order a
// whole read returns them.
func Kinds() []resource.Kind {
	return []resource.Kind{resource.KindNamespace, resource.KindVLANGroup, resource.KindVLAN,
		resource.KindPrefix, resource.KindIPAddress, resource.KindASN}
}

// KindsOf are the kinds s reads: all of them when it names none.
func KindsOf(s scope.Scope, server string) ([]resource.Kind, error) {
	if len(s.Kinds) == 0 {
		return Kinds(), nil
	}
	for _, k := range s.Kinds {
		if !slices.Contains(Kinds(), k) {
			return nil, fmt.Errorf("%s holds no %s objects", server, k)
		}
	}
	return s.Kinds, nil
}

// KindsOr are the kinds s reads, or all of them where it names one no
// server holds (a read of s refuses it first).
func KindsOr(s scope.Scope) []resource.Kind {
	if kinds, err := KindsOf(s, ""); err == nil {
		return kinds
	}
	return Kinds()
}

// Holds refuses a kind no source of truth holds for ipsync: segment
// ranges live in each site's Neutron.
func Holds(server string, k resource.Kind) error {
	if !slices.Contains(Kinds(), k) {
		return fmt.Errorf("%s holds no %s objects", server, k)
	}
	return nil
}

// KindRead is how a dialect sweeps one kind into its wire objects.
type KindRead struct {
	kind resource.Kind
	read func(context.Context, changelog.Select) error
}

// Into sweeps kind k into *into, read giving the objects that a query
// (the selection's: ids, a stamp, or none) matches; a selection by ids is
// read perRead ids at a time.
func Into[T any](k resource.Kind, into *[]T, perRead int, read func(ctx context.Context, extra url.Values) ([]T, error)) KindRead {
	return KindRead{kind: k, read: func(ctx context.Context, sel changelog.Select) error {
		got, err := changelog.Read(sel, k, perRead, func(extra url.Values) ([]T, error) { return read(ctx, extra) })
		*into = got
		return err
	}}
}

// Sweep runs the reads of the kinds among kinds that sel selects,
// concurrency at once.
func Sweep(ctx context.Context, concurrency int, kinds []resource.Kind, sel changelog.Select, reads ...KindRead) error {
	var tasks []func(context.Context) error
	for _, r := range reads {
		if slices.Contains(kinds, r.kind) && sel.Wants(r.kind) {
			tasks = append(tasks, func(ctx context.Context) error { return r.read(ctx, sel) })
		}
	}
	return parallel.Run(ctx, concurrency, tasks)
}
