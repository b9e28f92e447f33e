package netbox

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/ownership"
	"github.com/ipsync/ipsync/internal/parallel"
	"github.com/ipsync/ipsync/internal/resource"
)

// newFollower follows the log for t.
func (t *Target) newFollower() *changelog.Follower {
	kinds, err := kindsOf(t.scope)
	if err != nil {
		kinds = netboxKinds() // List refuses such a scope first
	}
	lookups := t.c.lookupTypes()
	return changelog.NewFollower(followed{&changeLog{c: t.c, t: &httpapi.Tally{}}, t, lookups}, logTypes(lookups), contentTypes(kinds), t.c.clock)
}

// followed is the adapter a Target's follower reads through.
type followed struct {
	*changeLog
	t       *Target
	lookups map[string]resource.Kind
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
	return objs, rereader{last: r, lookups: f.lookups}, nil
}

func contentTypes(kinds []resource.Kind) map[string]resource.Kind {
	out := make(map[string]resource.Kind, len(kinds))
	for _, k := range kinds {
		if ep, ok := endpointOf(k); ok {
			out[ep.ot] = k
		}
	}
	return out
}

// lookupTypes are the object types every object is read through, each
// with the lookups' kind it is kept under where objects know it by name
// alone (a change that keeps the name changes no object), or "" where
// any change may: custom fields, and locations, whose moves change the
// scope NetBox's database triggers give prefixes without a change record
// (a location moved to another site moves its prefixes with it).
func (c *Client) lookupTypes() map[string]resource.Kind {
	out := map[string]resource.Kind{"dcim.location": "", "extras.customfield": "",
		"ipam.role": resource.RefRole, "tenancy.tenant": resource.RefTenant, "extras.tag": resource.RefTag, "ipam.rir": refRIR}
	if c.cfg.LocationScope == ScopeSite {
		out["dcim.site"] = resource.RefLocation
	}
	return out
}

// logTypes are the object types a view follows: every kind NetBox holds,
// those the scope reads and those naming them, and the lookups. A change
// of a kind the scope does not read (a VLAN renumbered under a scope of
// prefixes alone) is one the view cannot follow, and makes it untrusted.
func logTypes(lookups map[string]resource.Kind) []string {
	types := slices.Collect(maps.Keys(lookups))
	for typ := range contentTypes(netboxKinds()) {
		types = append(types, typ)
	}
	slices.Sort(types)
	return types
}

// rereader reads changed objects again with the lookups and names of a
// whole read, learning the VLANs that prefixes refer to which it lacks.
type rereader struct {
	last    *reading
	lookups map[string]resource.Kind
}

var _ changelog.Settler = rereader{}

// Settle takes out of ch the changes of lease tags, and of the lookups
// that still exist under the name the whole read has for them: objects name them by name alone, so however
// else they changed (a tag's description, rewritten by every renewal of
// the agent's lease), every object reads as before. Of these only tags
// say where they may be used (object types), and the objects a follower
// serves (a site's) name no tag but the marker, which the write's
// preflight checks as it is then. Any other change of a lookup is left
// for the view to refuse.
func (rr rereader) Settle(_ context.Context, ch changelog.Changes) error {
	// Lease tags are locks no object carries; every acquiring, renewal
	// and release of a lease changes one.
	ch.DropNamed("extras.tag", ownership.LeaseTagPrefix)
	for typ, kind := range rr.lookups {
		if kind == "" {
			continue
		}
		for id, deleted := range ch.Objects[typ] {
			n, err := strconv.Atoi(id)
			if err != nil {
				continue
			}
			if known, ok := rr.last.m.l.refs[kind].byID[n]; ok && !deleted && known.Name == ch.Names[typ][id] {
				ch.Drop(typ, id)
			}
		}
	}
	return nil
}

// Reread reads the objects with the given ids again.
func (rr rereader) Reread(ctx context.Context, ids map[resource.Kind][]string) ([]resource.Object, []resource.Key, error) {
	last := rr.last
	r := &reading{c: last.c, t: &httpapi.Tally{}, scope: last.scope, want: slices.Sorted(maps.Keys(ids)), m: last.m}
	if len(ids[resource.KindNamespace]) > 0 || len(ids[resource.KindVLANGroup]) > 0 {
		// VRFs and groups are read whole, as List reads them; one renamed
		// or gone changes what the scope's names select and the keys of
		// everything in it, none of which is logged.
		vrfs, groups := maps.Clone(r.m.vrfs), maps.Clone(r.m.groups)
		if err := r.readNamed(ctx); err != nil {
			return nil, nil, err
		}
		for id, name := range vrfs {
			if r.m.vrfs[id] != name {
				return nil, nil, &changelog.UntrustedError{Reason: fmt.Sprintf("VRF %s was renamed or deleted", name)}
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
	named := map[int]string{}
	for _, id := range ids[resource.KindVLAN] {
		if n, err := strconv.Atoi(id); err == nil {
			if key, ok := r.m.vlans[n]; ok {
				named[n] = key
			}
			delete(r.m.vlans, n)
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
func (r *reading) strays(ctx context.Context, named map[int]string) ([]resource.Key, error) {
	var missing []int
	for n := range named {
		if _, ok := r.m.vlans[n]; !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		vs, err := byIDs[wireVLAN](ctx, r.c, "/api/ipam/vlans/", missing, url.Values{"fields": {"id,group,vid"}}, r.t)
		if err != nil {
			return nil, fmt.Errorf("vlans that left the scope: %w", err)
		}
		for _, v := range vs {
			r.m.vlans[v.ID] = resource.VLANKey(r.m.groups[refID(v.Group)], v.VID)
		}
	}
	var gone []resource.Key
	for n, key := range named {
		if r.m.vlans[n] != key {
			gone = append(gone, resource.Key{Kind: resource.KindVLAN, Name: key})
		}
	}
	return gone, nil
}

// Changed reads the objects of the scope stamped at or after since, with
// the lookups and names of the whole read. VRFs and VLAN groups are
// selected by stamp alone, as List reads them whole. What it learns goes
// to a copy of the names: a VLAN renumbered with no record must still
// read as renamed when the view rereads it.
func (rr rereader) Changed(ctx context.Context, since map[resource.Kind]time.Time) ([]resource.Object, error) {
	last := rr.last
	m := *last.m
	m.vlans = maps.Clone(m.vlans)
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
