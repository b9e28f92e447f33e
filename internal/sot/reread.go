package sot

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/parallel"
	"github.com/ipsync/ipsync/internal/resource"
)

// rereader reads changed objects again with the lookups and names of a
// whole read, learning the VLANs and parent prefixes they refer to that
// it lacks.
type rereader[ID cmp.Ordered] struct {
	last Reader[ID]
	// namespace is what the server calls a namespace, in messages.
	namespace string
}

var _ changelog.Rereader = rereader[string]{}

func (rr rereader[ID]) Names() ([]byte, error) { return rr.last.Save() }

func (rr rereader[ID]) Settle(ctx context.Context, ch changelog.Changes) error {
	return rr.last.Settle(ctx, ch)
}

// Reread reads the objects with the given ids again.
func (rr rereader[ID]) Reread(ctx context.Context, ids map[resource.Kind][]string) ([]resource.Object, []resource.Key, error) {
	r := rr.last.Again(slices.Sorted(maps.Keys(ids)), false)
	if len(ids[resource.KindNamespace]) > 0 || len(ids[resource.KindVLANGroup]) > 0 {
		// Namespaces and groups are read whole, as a whole read reads
		// them; one renamed or gone changes what the scope's names select
		// and the keys of everything in it, none of which is logged.
		before := r.Names()
		nss, groups := maps.Clone(before.Namespaces), maps.Clone(before.Groups)
		if err := readNamed(ctx, r); err != nil {
			return nil, nil, err
		}
		after := r.Names()
		for id, name := range nss {
			if after.Namespaces[id] != name {
				return nil, nil, &changelog.UntrustedError{Reason: fmt.Sprintf("%s %s was renamed or deleted", rr.namespace, name)}
			}
		}
		for id, name := range groups {
			if after.Groups[id] != name {
				return nil, nil, &changelog.UntrustedError{Reason: fmt.Sprintf("VLAN group %s was renamed or deleted", name)}
			}
		}
	}
	// A VLAN read again may have been renumbered or have left the scope:
	// prefixes naming it learn it anew, as a whole read would, and the
	// view rereads those naming its old key.
	vlans := r.Names().VLANs
	named := map[ID]string{}
	for _, s := range ids[resource.KindVLAN] {
		if id, ok := r.ParseID(s); ok {
			if key, ok := vlans[id]; ok {
				named[id] = key
			}
			delete(vlans, id)
		}
	}
	if err := r.SweepKinds(ctx, r.Want(), changelog.Select{IDs: ids}); err != nil {
		return nil, nil, err
	}
	if err := resolve(ctx, r); err != nil {
		return nil, nil, err
	}
	gone, err := strays(ctx, r, named)
	if err != nil {
		return nil, nil, err
	}
	objs, err := r.Objects()
	if err != nil {
		return nil, nil, err
	}
	// Ids are unique per kind only (NetBox numbers each kind on its own).
	asked := map[resource.Kind]map[string]bool{}
	for k, list := range ids {
		asked[k] = map[string]bool{}
		for _, id := range list {
			asked[k][id] = true
		}
	}
	return slices.DeleteFunc(objs, func(o resource.Object) bool { return !asked[o.Kind()][o.Meta().ID] }), gone, nil
}

// strays learns the VLANs read again that the reread did not return (out
// of the scope now, or gone) but that prefixes may name, and returns the
// keys of those that changed: named had their keys before.
func strays[ID cmp.Ordered](ctx context.Context, r Reader[ID], named map[ID]string) ([]resource.Key, error) {
	vlans := r.Names().VLANs
	var missing []ID
	for id := range named {
		if _, ok := vlans[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		keys, err := r.VLANKeys(ctx, missing)
		if err != nil {
			return nil, fmt.Errorf("vlans that left the scope: %w", err)
		}
		maps.Copy(vlans, keys)
	}
	var gone []resource.Key
	for id, key := range named {
		if vlans[id] != key {
			gone = append(gone, resource.Key{Kind: resource.KindVLAN, Name: key})
		}
	}
	return gone, nil
}

// Changed reads the objects of the scope stamped at or after since, with
// the lookups and names of the whole read. Namespaces and VLAN groups are
// selected by stamp alone, as a whole read reads them whole. What it
// learns goes to a copy of the names: a VLAN renumbered with no record
// must still read as renamed when the view rereads it.
func (rr rereader[ID]) Changed(ctx context.Context, since map[resource.Kind]time.Time) ([]resource.Object, error) {
	sel := changelog.Select{Since: since}
	r := rr.last.Again(sel.Among(rr.last.Want()), true)
	tasks := []func(context.Context) error{
		func(ctx context.Context) error { return r.SweepKinds(ctx, r.Want(), sel) },
		func(ctx context.Context) error { return r.SweepNamed(ctx, sel, r.Want()) },
	}
	if err := parallel.Run(ctx, len(tasks), tasks); err != nil {
		return nil, err
	}
	if err := resolve(ctx, r); err != nil {
		return nil, err
	}
	return r.Objects()
}
