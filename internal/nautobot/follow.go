package nautobot

import (
	"context"
	"fmt"
	"slices"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/ownership"
	"github.com/ipsync/ipsync/internal/resource"
)

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

// Settle takes out of ch the changes of lease tags, and of lookups that
// keep the name they had in the whole read. A lookup created since is not taken out: objects
// naming it would be read without its name. Statuses and roles are read
// again first: the plan checks their content types, which the log does
// not tell, and gets what was read.
func (r *reading) Settle(ctx context.Context, ch changelog.Changes) error {
	// Lease tags are locks no object carries; every acquiring, renewal
	// and release of a lease changes one.
	ch.DropNamed("extras.tag", ownership.LeaseTagPrefix)
	l := r.m.l
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
		fresh, err := byIDs[named](ctx, r.c, path, same, &httpapi.Tally{})
		if err != nil {
			return fmt.Errorf("%s: %w", typ, err)
		}
		for _, n := range fresh {
			// Renamed since the log was read: left for the view to refuse.
			if n.Name == l.refs[kind][n.ID].Name {
				l.relearn(kind, n)
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
