package nautobot

import (
	"context"
	"net/url"
	"slices"

	"github.com/ipsync/ipsync/internal/resource"
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

// refTag is the kind under which lookups keep tags; tags are not a
// resource kind because ipsync refers to them by name only.
const refTag resource.Kind = "tag"

// lookups are the objects other objects refer to, by id.
type lookups struct {
	refs map[resource.Kind]map[string]named // target-owned kinds and tags: id -> object
}

func (l *lookups) name(k resource.Kind, id string) string { return l.refs[k][id].Name }

// fetchLookups reads locations, statuses, roles, tenants and tags.
func (c *Client) fetchLookups(ctx context.Context, t *tally) (*lookups, error) {
	l := &lookups{refs: map[resource.Kind]map[string]named{}}
	kinds := append(refKinds(), refKind{refTag, pathTags})
	results := make([][]named, len(kinds))
	var tasks []func(context.Context) error
	for i, k := range kinds {
		tasks = append(tasks, func(ctx context.Context) error {
			got, err := sweep[named](ctx, c, k.path, url.Values{}, t)
			results[i] = got
			return err
		})
	}
	if err := parallel(ctx, c.cfg.Concurrency, tasks); err != nil {
		return nil, err
	}
	for i, k := range kinds {
		m := make(map[string]named, len(results[i]))
		for _, n := range results[i] {
			m[n.ID] = n
		}
		l.refs[k.kind] = m
	}
	c.learnRefs(l)
	return l, nil
}

// learnRefs remembers the names' ids for writing references.
func (c *Client) learnRefs(l *lookups) {
	byName := map[resource.Kind]map[string]string{}
	for k, m := range l.refs {
		byName[k] = make(map[string]string, len(m))
		for id, n := range m {
			byName[k][n.Name] = id
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.known.refs = byName
}

func (c *Client) learn(k resource.Key, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.known.own[k] = id
}

func (c *Client) forget(k resource.Key) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.known.own, k)
}

// refID is the id of a target-owned object by name, if known.
func (c *Client) refID(k resource.Kind, name string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id, ok := c.known.refs[k][name]
	return id, ok
}

func (c *Client) ownID(k resource.Key) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id, ok := c.known.own[k]
	return id, ok
}

// applicable reports whether a status or role may be used on any kind
// ipsync writes.
func applicable(n named) bool {
	for _, k := range nautobotKinds() {
		ep, _ := endpointOf(k)
		if slices.Contains(n.ContentTypes, ep.ct) {
			return true
		}
	}
	return false
}
