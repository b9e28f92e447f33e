package nautobot

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/resource"
)

// following is what a Target keeps to follow the change log after a whole
// read: where the log stood, the objects as read since, and the names the
// read mapped them with.
type following struct {
	cursor *changelog.Cursor
	view   *changelog.View
	last   *reading
}

// Follow reads the scope whole, as List does, having first noted where the
// change log stands, so that Refresh can then bring what it read up to
// date from the log alone.
func (t *Target) Follow(ctx context.Context) ([]resource.Object, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.follow = nil
	log := &changeLog{c: t.c, t: &httpapi.Tally{}}
	cursor := changelog.NewCursor(log, t.logTypes(), clock.Real())
	if err := cursor.Start(ctx); err != nil {
		return nil, fmt.Errorf("read nautobot: %w", err)
	}
	objs, r, err := t.c.list(ctx, t.scope)
	if err != nil {
		return nil, err
	}
	t.listed = r.m.l
	t.follow = &following{cursor: cursor, view: changelog.NewView(objs), last: r}
	return objs, nil
}

// Refresh brings the objects of the last Follow up to date from the change
// log: it reads the log since the last Follow or Refresh and rereads the
// objects it names. An *changelog.UntrustedError (a gap, a lagging commit,
// a lookup changed) means Follow again; so does any other error, after
// which the log is not followed until Follow.
func (t *Target) Refresh(ctx context.Context) ([]resource.Object, changelog.Stats, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.follow
	if f == nil {
		return nil, changelog.Stats{}, &changelog.UntrustedError{Reason: "no whole read to follow on from"}
	}
	t.follow = nil
	ch, err := f.cursor.Next(ctx)
	if err != nil {
		return nil, changelog.Stats{}, err
	}
	st, err := f.view.Update(ctx, ch, contentTypes(), rereader{f.last})
	if err != nil {
		return nil, changelog.Stats{}, err
	}
	t.listed = f.last.m.l
	t.follow = f
	return f.view.Objects(), st, nil
}

// logTypes are the content types a view follows: its kinds' and the
// lookups'.
func (t *Target) logTypes() []string {
	kinds, err := kindsOf(t.scope)
	if err != nil {
		kinds = nautobotKinds()
	}
	types := lookupTypes()
	for typ, k := range contentTypes() {
		if slices.Contains(kinds, k) {
			types = append(types, typ)
		}
	}
	slices.Sort(types)
	return types
}

// rereader reads changed objects again with the names of the last whole
// read, learning the VLANs and parent prefixes they refer to that it
// lacks.
type rereader struct{ last *reading }

func (rr rereader) Reread(ctx context.Context, ids map[resource.Kind][]string) ([]resource.Object, error) {
	last := rr.last
	r := &reading{c: last.c, t: &httpapi.Tally{}, scope: last.scope, want: slices.Sorted(maps.Keys(ids)), m: last.m}
	if len(ids[resource.KindNamespace]) > 0 || len(ids[resource.KindVLANGroup]) > 0 {
		// Namespaces and groups are read whole, as List reads them; one
		// renamed or gone changes what the scope's names select.
		nss, groups := maps.Clone(r.m.namespaces), maps.Clone(r.m.groups)
		if err := r.readNamed(ctx); err != nil {
			return nil, err
		}
		for id, name := range nss {
			if r.m.namespaces[id] != name {
				return nil, &changelog.UntrustedError{Reason: fmt.Sprintf("namespace %s was renamed or deleted", name)}
			}
		}
		for id, name := range groups {
			if r.m.groups[id] != name {
				return nil, &changelog.UntrustedError{Reason: fmt.Sprintf("VLAN group %s was renamed or deleted", name)}
			}
		}
	}
	if err := r.readKinds(ctx, r.want, ids); err != nil {
		return nil, err
	}
	if err := r.resolve(ctx); err != nil {
		return nil, err
	}
	objs, err := r.objects()
	if err != nil {
		return nil, err
	}
	asked := map[string]bool{}
	for _, list := range ids {
		for _, id := range list {
			asked[id] = true
		}
	}
	return slices.DeleteFunc(objs, func(o resource.Object) bool { return !asked[o.Meta().ID] }), nil
}
