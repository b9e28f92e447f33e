package nautobot

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/parallel"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sot"
)

// refKind is a kind Nautobot owns that ipsync objects refer to, and
// where it lives.
type refKind struct {
	kind resource.Kind
	path string
}

func refKinds() []refKind {
	return []refKind{
		{resource.RefLocation, pathLocations}, {resource.RefStatus, pathStatuses},
		{resource.RefRole, pathRoles}, {resource.RefTenant, pathTenants},
	}
}

// Kinds under which lookups keep what ipsync does not refer to as a
// resource kind: tags (named by name only) and location types (which
// say what a location may hold).
const (
	refTag          resource.Kind = "tag"
	refLocationType resource.Kind = "location_type"
)

// lookups are the objects other objects refer to, by id.
type lookups struct {
	refs map[resource.Kind]map[string]named // target-owned kinds and tags: id -> object
	// byName is refs by name; a location's name is the one locationNames
	// gives it.
	byName map[resource.Kind]map[string]named
	// shared are the location names that name several locations, each
	// with those locations' paths.
	shared map[string][]string
	// raw is what was read, locations under their own names, from which
	// newLookups builds the rest again (a resumed agent's).
	raw map[resource.Kind][]named
}

func (l *lookups) name(k resource.Kind, id string) string { return l.refs[k][id].Name }

// fetchLookups reads locations and their types, statuses, roles, tenants
// and tags.
func (c *Client) fetchLookups(ctx context.Context, t *httpapi.Tally) (*lookups, error) {
	kinds := append(refKinds(), refKind{refTag, pathTags}, refKind{refLocationType, pathLocationTypes})
	results := make([][]named, len(kinds))
	var tasks []func(context.Context) error
	for i, k := range kinds {
		tasks = append(tasks, func(ctx context.Context) error {
			got, err := sweep[named](ctx, c, k.path, url.Values{}, t)
			results[i] = got
			return err
		})
	}
	if err := parallel.Run(ctx, c.cfg.Concurrency, tasks); err != nil {
		return nil, err
	}
	raw := map[resource.Kind][]named{}
	for i, k := range kinds {
		raw[k.kind] = results[i]
	}
	return newLookups(raw), nil
}

// newLookups indexes what fetchLookups read, naming locations by
// locationNames.
func newLookups(raw map[resource.Kind][]named) *lookups {
	l := &lookups{refs: map[resource.Kind]map[string]named{}, byName: map[resource.Kind]map[string]named{}, raw: raw}
	for k, objs := range raw {
		m := make(map[string]named, len(objs))
		for _, n := range objs {
			m[n.ID] = n
		}
		l.refs[k] = m
	}
	var names map[string]string
	names, l.shared = locationNames(l.refs[resource.RefLocation])
	for id, n := range l.refs[resource.RefLocation] {
		n.Name = names[id]
		l.refs[resource.RefLocation][id] = n
	}
	for k, m := range l.refs {
		byName := make(map[string]named, len(m))
		for _, n := range m {
			if n.Name != "" {
				byName[n.Name] = n
			}
		}
		l.byName[k] = byName
	}
	return l
}

// pathSep separates the names of a location path.
const pathSep = "/"

// locationNames names each location for specs and plans. Nautobot keeps
// a location's name unique only among its siblings (and among the
// roots), so a location is named by its name where no other location has
// that name, and otherwise by its path from the root, "DC-B22/row1",
// which is unique. shared maps each name several locations have to their
// paths. A path that equals another location's name (a location named
// "DC-B22/row1") makes both ambiguous: they get no name, and the name is
// in shared.
func locationNames(locs map[string]named) (names map[string]string, shared map[string][]string) {
	count := map[string]int{}
	for _, n := range locs {
		count[n.Name]++
	}
	path := func(n named) string {
		parts := []string{n.Name}
		for p, depth := n.Parent, 0; p != nil && depth < 100; depth++ {
			parent, ok := locs[p.ID]
			if !ok {
				break
			}
			parts = append(parts, parent.Name)
			p = parent.Parent
		}
		slices.Reverse(parts)
		return strings.Join(parts, pathSep)
	}
	names = make(map[string]string, len(locs))
	shared = map[string][]string{}
	for id, n := range locs {
		if count[n.Name] == 1 {
			names[id] = n.Name
			continue
		}
		names[id] = path(n)
		shared[n.Name] = append(shared[n.Name], names[id])
	}
	byName := map[string][]string{}
	for id, name := range names {
		byName[name] = append(byName[name], id)
	}
	for name, ids := range byName {
		if len(ids) < 2 {
			continue
		}
		for _, id := range ids {
			delete(names, id)
		}
		shared[name] = append(shared[name], name)
	}
	for name := range shared {
		slices.Sort(shared[name])
		shared[name] = slices.Compact(shared[name])
	}
	return names, shared
}

// known is what a read learnt that writes name objects by: the ids of
// the lookups by name, and of ipsync's own objects that others refer to.
// The rereads of a read share it, and the writes through it add to it.
type known struct {
	own sot.Learnt[string]

	mu     sync.Mutex
	refIDs map[resource.Kind]map[string]string
}

// newKnown knows l's names.
func newKnown(l *lookups) *known {
	k := &known{refIDs: map[resource.Kind]map[string]string{}}
	for kind, m := range l.byName {
		k.refIDs[kind] = make(map[string]string, len(m))
		for name, n := range m {
			k.refIDs[kind][name] = n.ID
		}
	}
	return k
}

// relearn puts n, read again with the name it had, in place of what l
// knew of it.
func (l *lookups) relearn(k resource.Kind, n named) {
	if old, ok := l.refs[k][n.ID]; ok && old.Name == n.Name {
		l.refs[k][n.ID] = n
		l.byName[k][n.Name] = n
		if i := slices.IndexFunc(l.raw[k], func(r named) bool { return r.ID == n.ID }); i >= 0 {
			l.raw[k] = slices.Clone(l.raw[k])
			l.raw[k][i] = n
		}
	}
}

// learnRef puts n, a lookup read again, in the names writes resolve by:
// one made again since the lookups were read has a new id.
func (k *known) learnRef(kind resource.Kind, n named) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.refIDs[kind] == nil {
		k.refIDs[kind] = map[string]string{}
	}
	k.refIDs[kind][n.Name] = n.ID
}

// refID is the id of a target-owned object by name, if known.
func (k *known) refID(kind resource.Kind, name string) (string, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	id, ok := k.refIDs[kind][name]
	return id, ok
}

// locationName is the name of the location with id, or "".
func (k *known) locationName(id string) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	for name, lid := range k.refIDs[resource.RefLocation] {
		if lid == id {
			return name
		}
	}
	return ""
}
