package nautobot

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/ownership"
	"github.com/ipsync/ipsync/internal/parallel"
	"github.com/ipsync/ipsync/internal/resource"
)

// followed is the adapter a Target's follower reads through.
type followed struct {
	*changeLog
	t *Target
}

// Reused keeps the names of the whole read for the plan of a Refresh's
// objects.
func (f followed) Reused() {
	f.t.mu.Lock()
	f.t.listed = f.t.whole.m.l
	f.t.mu.Unlock()
}

func (f followed) ReadWhole(ctx context.Context) ([]resource.Object, changelog.Rereader, error) {
	objs, r, err := f.t.c.list(ctx, f.t.scope)
	if err != nil {
		return nil, nil, err
	}
	f.t.mu.Lock()
	f.t.listed, f.t.whole = r.m.l, r
	f.t.mu.Unlock()
	return objs, rereader{r}, nil
}

// logTypes are the content types a view of sc follows: its kinds' and the
// lookups'.
func logTypes(sc []resource.Kind) []string {
	types := lookupTypes()
	for typ, k := range contentTypes() {
		if slices.Contains(sc, k) {
			types = append(types, typ)
		}
	}
	slices.Sort(types)
	return types
}

// rereader reads changed objects again with the names of a whole read,
// learning the VLANs and parent prefixes they refer to that it lacks.
type rereader struct{ last *reading }

var _ changelog.Settler = rereader{}

// Settle takes out of ch the changes of lease tags, and of lookups that
// keep the name they had in the whole read. A lookup created since is not taken out: objects
// naming it would be read without its name. Statuses and roles are read
// again first: the plan checks their content types, which the log does
// not tell, and gets what was read.
func (rr rereader) Settle(ctx context.Context, ch changelog.Changes) error {
	// Lease tags are locks no object carries; every acquiring, renewal
	// and release of a lease changes one.
	ch.DropNamed("extras.tag", ownership.LeaseTagPrefix)
	l := rr.last.m.l
	for typ, kind := range namedLookups() {
		var same []string
		for id, deleted := range ch.Objects[typ] {
			if known, ok := l.refs[kind][id]; ok && !deleted && known.Name == ch.Names[typ][id] {
				same = append(same, id)
			}
		}
		path, checked := usedWhere()[kind]
		if !checked {
			for _, id := range same {
				ch.Drop(typ, id)
			}
			continue
		}
		if len(same) == 0 {
			continue
		}
		slices.Sort(same)
		fresh, err := byIDs[named](ctx, rr.last.c, path, same, &httpapi.Tally{})
		if err != nil {
			return fmt.Errorf("%s: %w", typ, err)
		}
		for _, n := range fresh {
			// Renamed since the log was read: left for the view to refuse.
			if n.Name == l.refs[kind][n.ID].Name {
				rr.last.c.relearn(l, kind, n)
				ch.Drop(typ, n.ID)
			}
		}
	}
	return nil
}

// usedWhere are the lookups whose content types say where they may be
// used, which the plan checks, and where they are read. Tags have content
// types too, but the objects a follower serves (a site's) name no tag
// but the marker, which the write's preflight checks as it is then; and
// every renewal of the agent's lease rewrites a tag, which would cost a
// read every cycle.
func usedWhere() map[resource.Kind]string {
	return map[resource.Kind]string{resource.RefStatus: pathStatuses, resource.RefRole: pathRoles}
}

func (rr rereader) Reread(ctx context.Context, ids map[resource.Kind][]string) ([]resource.Object, []resource.Key, error) {
	last := rr.last
	r := &reading{c: last.c, t: &httpapi.Tally{}, scope: last.scope, want: slices.Sorted(maps.Keys(ids)), m: last.m}
	if len(ids[resource.KindNamespace]) > 0 || len(ids[resource.KindVLANGroup]) > 0 {
		// Namespaces and groups are read whole, as List reads them; one
		// renamed or gone changes what the scope's names select.
		nss, groups := maps.Clone(r.m.namespaces), maps.Clone(r.m.groups)
		if err := r.readNamed(ctx); err != nil {
			return nil, nil, err
		}
		for id, name := range nss {
			if r.m.namespaces[id] != name {
				return nil, nil, &changelog.UntrustedError{Reason: fmt.Sprintf("namespace %s was renamed or deleted", name)}
			}
		}
		for id, name := range groups {
			if r.m.groups[id] != name {
				return nil, nil, &changelog.UntrustedError{Reason: fmt.Sprintf("VLAN group %s was renamed or deleted", name)}
			}
		}
	}
	// A VLAN read again may have been renumbered or have left the scope:
	// prefixes naming it learn it anew, as a whole read would, and the
	// view rereads those naming its old key.
	named := map[string]string{}
	for _, id := range ids[resource.KindVLAN] {
		if key, ok := r.m.vlans[id]; ok {
			named[id] = key
			delete(r.m.vlans, id)
		}
	}
	if err := r.readKinds(ctx, r.want, changelog.Select{IDs: ids}); err != nil {
		return nil, nil, err
	}
	if err := r.resolve(ctx); err != nil {
		return nil, nil, err
	}
	gone, err := r.strays(ctx, named)
	if err != nil {
		return nil, nil, err
	}
	objs, err := r.objects()
	if err != nil {
		return nil, nil, err
	}
	asked := map[string]bool{}
	for _, list := range ids {
		for _, id := range list {
			asked[id] = true
		}
	}
	return slices.DeleteFunc(objs, func(o resource.Object) bool { return !asked[o.Meta().ID] }), gone, nil
}

// strays learns the VLANs read again that the reread did not return (out of
// the scope now, or gone) but that prefixes may name, and returns the keys
// of those that changed: named had their keys before.
func (r *reading) strays(ctx context.Context, named map[string]string) ([]resource.Key, error) {
	var missing []string
	for id := range named {
		if _, ok := r.m.vlans[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		vs, err := byIDs[wireVLAN](ctx, r.c, "/api/ipam/vlans/", missing, r.t)
		if err != nil {
			return nil, fmt.Errorf("vlans that left the scope: %w", err)
		}
		for _, v := range vs {
			r.m.vlans[v.ID] = resource.VLANKey(r.m.groups[refID(v.Group)], v.VID)
		}
	}
	var gone []resource.Key
	for id, key := range named {
		if r.m.vlans[id] != key {
			gone = append(gone, resource.Key{Kind: resource.KindVLAN, Name: key})
		}
	}
	return gone, nil
}

// Changed reads the objects of the scope stamped at or after since, with
// the names of the whole read. Namespaces and VLAN groups are selected by
// stamp alone, as List reads them whole. What it learns goes to a copy of
// the names: a VLAN renumbered with no record must still read as renamed
// when the view rereads it.
func (rr rereader) Changed(ctx context.Context, since map[resource.Kind]time.Time) ([]resource.Object, error) {
	last := rr.last
	m := *last.m
	m.vlans, m.prefixNS = maps.Clone(m.vlans), maps.Clone(m.prefixNS)
	r := &reading{c: last.c, t: &httpapi.Tally{}, scope: last.scope, m: &m}
	sel := changelog.Select{Since: since}
	r.want = sel.Among(last.want)
	tasks := []func(context.Context) error{
		func(ctx context.Context) error { return r.readKinds(ctx, r.want, sel) },
		func(ctx context.Context) error { return r.sweepNamed(ctx, sel, r.want) },
	}
	if err := parallel.Run(ctx, r.c.cfg.Concurrency, tasks); err != nil {
		return nil, err
	}
	if err := r.resolve(ctx); err != nil {
		return nil, err
	}
	return r.objects()
}
