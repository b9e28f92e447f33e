package netbox

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/parallel"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sot"
)

// Kinds under which lookups keep what ipsync does not refer to as a
// resource kind.
const (
	refRIR resource.Kind = "rir"
)

// names maps the objects of one kind between ids and names.
type names struct {
	byID   map[int]named
	byName map[string]int
	// shared are names several objects have (locations are unique only
	// within their site and parent): they name none of them.
	shared map[string]bool
}

func newNames(objs []named) names {
	n := names{byID: make(map[int]named, len(objs)), byName: make(map[string]int, len(objs)), shared: map[string]bool{}}
	for _, o := range objs {
		n.byID[o.ID] = o
		if _, dup := n.byName[o.Name]; dup {
			n.shared[o.Name] = true
		}
		n.byName[o.Name] = o.ID
	}
	for s := range n.shared {
		delete(n.byName, s)
	}
	return n
}

func (n names) name(id int) string { return n.byID[id].Name }

// lookups are what ipsync objects refer to and NetBox owns: sites or
// locations (as Config.LocationScope says), roles, tenants, tags, RIRs,
// and the choices of status and IP role fields.
type lookups struct {
	refs map[resource.Kind]names
	// statuses are the status choices per object type ("ipam.vlan"); an
	// object type without a status field has none.
	statuses map[string][]choice
	ipRoles  []choice
}

// lookupPaths are where the named lookups live.
func (c *Client) lookupPaths() map[resource.Kind]string {
	loc := pathSites
	if c.cfg.LocationScope == ScopeLocation {
		loc = pathLocations
	}
	return map[resource.Kind]string{resource.RefLocation: loc, resource.RefRole: pathRoles,
		resource.RefTenant: pathTenants, resource.RefTag: pathTags, refRIR: pathRIRs}
}

// choiceFields are the choice fields ipsync maps, read from the schema
// NetBox describes for a create: FIELD_CHOICES in its configuration may
// change them.
var choiceFields = []struct{ ot, path, field string }{
	{"ipam.vlan", "/api/ipam/vlans/", "status"},
	{"ipam.prefix", "/api/ipam/prefixes/", "status"},
	{"ipam.ipaddress", "/api/ipam/ip-addresses/", "status"},
	{"ipam.ipaddress", "/api/ipam/ip-addresses/", "role"},
}

// fetchLookups reads the lookups and keeps them for Check and for writing
// references.
func (c *Client) fetchLookups(ctx context.Context, t *httpapi.Tally) (*lookups, error) {
	l := &lookups{refs: map[resource.Kind]names{}, statuses: map[string][]choice{}}
	paths := c.lookupPaths()
	kinds := make([]resource.Kind, 0, len(paths))
	for k := range paths {
		kinds = append(kinds, k)
	}
	got := make([][]named, len(kinds))
	opts := make([]map[string][]choice, len(choiceFields))
	var tasks []func(context.Context) error
	for i, k := range kinds {
		tasks = append(tasks, func(ctx context.Context) error {
			var err error
			got[i], err = sweep[named](ctx, c, paths[k], url.Values{"fields": {"id,name,slug,object_types"}}, t)
			return err
		})
	}
	for i, f := range choiceFields {
		tasks = append(tasks, func(ctx context.Context) error {
			var err error
			opts[i], err = c.choices(ctx, f.path, t)
			return err
		})
	}
	if err := parallel.Run(ctx, c.cfg.Concurrency, tasks); err != nil {
		return nil, err
	}
	for i, k := range kinds {
		l.refs[k] = newNames(got[i])
	}
	for i, f := range choiceFields {
		if f.field == "role" {
			l.ipRoles = opts[i][f.field]
		} else {
			l.statuses[f.ot] = opts[i][f.field]
		}
	}
	return l, nil
}

// choices reads the choice fields of path's create schema (OPTIONS).
func (c *Client) choices(ctx context.Context, path string, t *httpapi.Tally) (map[string][]choice, error) {
	var schema struct {
		Actions struct {
			POST map[string]struct {
				Choices []struct {
					Value       string `json:"value"`
					DisplayName string `json:"display_name"`
				} `json:"choices"`
			} `json:"POST"`
		} `json:"actions"`
	}
	r := httpapi.Request{Method: http.MethodOptions, Path: path, Tally: t,
		Decode: func(b []byte) error { return json.Unmarshal(b, &schema) }}
	resp, err := c.api.Do(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("read the choices of %s: %w", path, err)
	}
	if resp.Status != http.StatusOK {
		return nil, fmt.Errorf("read the choices of %s: %w", path, r.Error(resp))
	}
	out := map[string][]choice{}
	for field, f := range schema.Actions.POST {
		for _, ch := range f.Choices {
			out[field] = append(out[field], choice{Value: ch.Value, Label: ch.DisplayName})
		}
	}
	return out, nil
}

// label is the label of a choice value, as ipsync names statuses; a
// value NetBox no longer offers is named by itself.
func label(cs []choice, ch *choice) string {
	if ch == nil || ch.Value == "" {
		return ""
	}
	if ch.Label != "" {
		return ch.Label
	}
	for _, x := range cs {
		if x.Value == ch.Value {
			return x.Label
		}
	}
	return ch.Value
}

// value is the value of the choice labelled name, if NetBox offers one.
func value(cs []choice, name string) (string, bool) {
	for _, x := range cs {
		if x.Label == name {
			return x.Value, true
		}
	}
	return "", false
}

// known is what a read learnt that writes name objects by: its lookups,
// and the ids of ipsync's own objects that others refer to. The rereads
// of a read share it, and the writes through it add to it.
type known struct {
	own sot.Learnt[int]

	mu sync.Mutex
	l  *lookups // replaced whole, never changed: a write may hold the old
}

func newKnown(l *lookups) *known { return &known{l: l} }

// lookups are the lookups writes resolve by.
func (k *known) lookups() *lookups {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.l
}

// learnID learns an id as the engine gives it.
func (k *known) learnID(key resource.Key, id string) {
	if n, err := strconv.Atoi(id); err == nil {
		k.own.Learn(key, n)
	}
}

// learnTag puts a tag as read now in the lookups the writes resolve by:
// one made again since they were read (a bootstrap after the tag was
// deleted) has a new id.
func (k *known) learnTag(t named) {
	k.mu.Lock()
	defer k.mu.Unlock()
	old := k.l.refs[resource.RefTag]
	tags := names{byID: maps.Clone(old.byID), byName: maps.Clone(old.byName), shared: old.shared}
	if tags.byID == nil {
		tags.byID, tags.byName = map[int]named{}, map[string]int{}
	}
	if id, ok := tags.byName[t.Name]; ok {
		delete(tags.byID, id)
	}
	tags.byID[t.ID], tags.byName[t.Name] = t, t.ID
	l := *k.l
	l.refs = maps.Clone(k.l.refs)
	l.refs[resource.RefTag] = tags
	k.l = &l
}
