package netbox

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/resource"
)

// following is what a Target keeps to follow the change log after a whole
// read: where the log stood, the objects as read since, and the reading
// whose lookups and names they were mapped with.
type following struct {
	log    *changeLog
	cursor *changelog.Cursor
	view   *changelog.View
	kinds  map[string]resource.Kind
	last   *reading
	// vlans are the ids of the VLANs the view holds.
	vlans map[int]bool
}

// Follow reads the scope whole, as List does, having first noted where the
// change log stands, so that Refresh can then bring what it read up to
// date from the log alone.
func (t *Target) Follow(ctx context.Context) ([]resource.Object, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.follow = nil
	kinds, err := kindsOf(t.scope)
	if err != nil {
		return nil, err
	}
	log := &changeLog{c: t.c, t: &httpapi.Tally{}, byName: t.c.lookupTypes()}
	cursor := changelog.NewCursor(log, logTypes(log.byName), t.c.clock)
	if err := cursor.Start(ctx); err != nil {
		return nil, fmt.Errorf("read netbox: %w", err)
	}
	objs, r, err := t.c.list(ctx, t.scope)
	if err != nil {
		return nil, err
	}
	t.listed = r.m.l
	t.follow = &following{log: log, cursor: cursor, view: changelog.NewView(toView(objs)), kinds: contentTypes(kinds), last: r,
		vlans: vlanIDs(objs)}
	return objs, nil
}

// Refresh brings the objects of the last Follow up to date from the change
// log: it reads the log since the last Follow or Refresh and rereads the
// objects it names. A *changelog.UntrustedError (a gap, a lagging commit,
// a lookup changed, a VRF or VLAN group renamed) means Follow again; so
// does any other error, after which the log is not followed until Follow.
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
	f.log.settle(ch, f.last.m.l)
	st, err := f.view.Update(ctx, toViewChanges(ch, f.kinds), f.kinds, rereader{f})
	if err != nil {
		return nil, changelog.Stats{}, err
	}
	objs := fromView(f.view.Objects())
	f.vlans = vlanIDs(objs)
	t.listed = f.last.m.l
	t.follow = f
	return objs, st, nil
}

func vlanIDs(objs []resource.Object) map[int]bool {
	out := map[int]bool{}
	for _, o := range objs {
		if o.Kind() == resource.KindVLAN {
			if n, err := strconv.Atoi(o.Meta().ID); err == nil {
				out[n] = true
			}
		}
	}
	return out
}

// contentTypes are the object types of kinds: those a view holds.
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

// rereader reads changed objects again with the lookups and names of the
// last whole read, learning the VLANs that prefixes refer to which it
// lacks.
type rereader struct{ f *following }

// Reread reads the objects with the view's ids.
func (rr rereader) Reread(ctx context.Context, viewIDs map[resource.Kind][]string) ([]resource.Object, error) {
	ids := fromViewIDs(viewIDs)
	last := rr.f.last
	r := &reading{c: last.c, t: &httpapi.Tally{}, scope: last.scope, want: slices.Sorted(maps.Keys(ids)), m: last.m}
	if len(ids[resource.KindNamespace]) > 0 || len(ids[resource.KindVLANGroup]) > 0 {
		// VRFs and groups are read whole, as List reads them; one renamed
		// or gone changes what the scope's names select and the keys of
		// everything in it, none of which is logged.
		vrfs, groups := maps.Clone(r.m.vrfs), maps.Clone(r.m.groups)
		if err := r.readNamed(ctx); err != nil {
			return nil, err
		}
		for id, name := range vrfs {
			if r.m.vrfs[id] != name {
				return nil, &changelog.UntrustedError{Reason: fmt.Sprintf("VRF %s was renamed or deleted", name)}
			}
		}
		for id, name := range groups {
			if r.m.groups[id] != name {
				return nil, &changelog.UntrustedError{Reason: fmt.Sprintf("VLAN group %s was renamed or deleted", name)}
			}
		}
	}
	// A VLAN read again may have been renumbered or have left the scope:
	// prefixes naming it must learn it anew, as a whole read would.
	named := map[int]string{}
	for _, id := range ids[resource.KindVLAN] {
		if n, err := strconv.Atoi(id); err == nil {
			if key, ok := r.m.vlans[n]; ok && !rr.f.vlans[n] {
				named[n] = key
			}
			delete(r.m.vlans, n)
		}
	}
	if err := r.readKinds(ctx, r.want, ids); err != nil {
		return nil, err
	}
	if err := r.resolve(ctx); err != nil {
		return nil, err
	}
	if err := rr.strays(ctx, r, named); err != nil {
		return nil, err
	}
	objs, err := r.objects()
	if err != nil {
		return nil, err
	}
	asked := map[string]bool{}
	for k, list := range ids {
		for _, id := range list {
			asked[viewID(k, id)] = true
		}
	}
	return slices.DeleteFunc(toView(objs), func(o resource.Object) bool { return !asked[o.Meta().ID] }), nil
}

// strays checks the VLANs read again that the view does not hold but
// prefixes in it name (one outside the scope's groups), with the keys
// they were named by. The view rereads the objects naming a key only
// when it held the key's object, so one of these renumbered or moved
// would leave its prefixes naming it wrongly.
func (rr rereader) strays(ctx context.Context, r *reading, named map[int]string) error {
	var ids []int
	for n := range named {
		if r.m.vlans[n] == "" {
			ids = append(ids, n)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	vs, err := byIDs[wireVLAN](ctx, r.c, "/api/ipam/vlans/", ids, url.Values{"fields": {"id,group,vid"}}, r.t)
	if err != nil {
		return fmt.Errorf("vlans outside the scope: %w", err)
	}
	for _, v := range vs {
		key := resource.VLANKey(r.m.groups[refID(v.Group)], v.VID)
		if key != named[v.ID] {
			return &changelog.UntrustedError{Reason: fmt.Sprintf("VLAN %s outside the scope, named by prefixes in it, is now %s", named[v.ID], key)}
		}
		r.m.vlans[v.ID] = key
	}
	return nil
}
