package netbox

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/parallel"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// kindsOf are the kinds s reads.
func kindsOf(s scope.Scope) ([]resource.Kind, error) {
	if len(s.Kinds) == 0 {
		return netboxKinds(), nil
	}
	for _, k := range s.Kinds {
		if _, ok := endpointOf(k); !ok {
			return nil, fmt.Errorf("netbox holds no %s objects", k)
		}
	}
	return s.Kinds, nil
}

// List reads every object in sc. It fails rather than return part of
// what NetBox holds.
func (c *Client) List(ctx context.Context, sc scope.Scope) ([]resource.Object, error) {
	objs, _, err := c.list(ctx, sc)
	return objs, err
}

// list is List, also returning the reading, whose mapper has the lookups
// and names the objects were read with.
func (c *Client) list(ctx context.Context, sc scope.Scope) ([]resource.Object, *reading, error) {
	kinds, err := kindsOf(sc)
	if err != nil {
		return nil, nil, err
	}
	t := &httpapi.Tally{}
	l, err := c.fetchLookups(ctx, t)
	if err != nil {
		return nil, nil, fmt.Errorf("read netbox: %w", err)
	}
	r := &reading{c: c, t: t, scope: sc, want: kinds, m: c.newMapper(l)}
	if err := r.read(ctx); err != nil {
		return nil, nil, fmt.Errorf("read netbox: %w", err)
	}
	objs, err := r.objects()
	if err != nil {
		return nil, nil, fmt.Errorf("read netbox: %w", err)
	}
	c.log.Debug("listed", "objects", len(objs), "requests", t.Reads())
	return objs, r, nil
}

// reading is one List in progress.
type reading struct {
	c     *Client
	t     *httpapi.Tally
	scope scope.Scope
	want  []resource.Kind
	m     *mapper

	vrfs     []wireVRF
	groups   []wireVLANGroup
	vlans    []wireVLAN
	prefixes []wirePrefix
	ips      []wireIP
	asns     []wireASN
}

func (r *reading) wants(k resource.Kind) bool { return slices.Contains(r.want, k) }

func (r *reading) query(k resource.Kind) (string, url.Values) {
	ep, _ := endpointOf(k)
	return ep.path, url.Values{"fields": {ep.fields}}
}

// read sweeps the kinds in scope. VRFs and VLAN groups are always read
// whole: they are few, and other objects are named by them.
func (r *reading) read(ctx context.Context) error {
	if err := r.readNamed(ctx); err != nil {
		return err
	}
	if err := r.readKinds(ctx, r.want, changelog.Select{}); err != nil {
		return err
	}
	return r.resolve(ctx)
}

// readNamed reads every VRF and VLAN group, and learns their names.
func (r *reading) readNamed(ctx context.Context) error {
	if err := r.sweepNamed(ctx, changelog.Select{}, []resource.Kind{resource.KindNamespace, resource.KindVLANGroup}); err != nil {
		return err
	}
	r.m.vrfs, r.m.groups = make(map[int]string, len(r.vrfs)), make(map[int]string, len(r.groups))
	for _, v := range r.vrfs {
		r.m.vrfs[v.ID] = v.Name
		r.c.learn(resource.Key{Kind: resource.KindNamespace, Name: v.Name}, v.ID)
	}
	for _, g := range r.groups {
		r.m.groups[g.ID] = g.Name
		r.c.learn(resource.Key{Kind: resource.KindVLANGroup, Name: g.Name}, g.ID)
	}
	return nil
}

// sweepNamed reads the VRFs and VLAN groups among kinds that sel selects:
// every one for a whole read, those stamped since for the check of a view.
// Either kind is read whole, not by the scope, as List reads it.
func (r *reading) sweepNamed(ctx context.Context, sel changelog.Select, kinds []resource.Kind) error {
	var tasks []func(context.Context) error
	if slices.Contains(kinds, resource.KindNamespace) {
		tasks = append(tasks, func(ctx context.Context) error {
			p, q := r.query(resource.KindNamespace)
			var err error
			r.vrfs, err = changelog.Read(sel, resource.KindNamespace, 0, func(extra url.Values) ([]wireVRF, error) {
				return sweep[wireVRF](ctx, r.c, p, httpapi.With(q, extra), r.t)
			})
			return err
		})
	}
	if slices.Contains(kinds, resource.KindVLANGroup) {
		tasks = append(tasks, func(ctx context.Context) error {
			p, q := r.query(resource.KindVLANGroup)
			var err error
			r.groups, err = changelog.Read(sel, resource.KindVLANGroup, 0, func(extra url.Values) ([]wireVLANGroup, error) {
				return sweep[wireVLANGroup](ctx, r.c, p, httpapi.With(q, extra), r.t)
			})
			return err
		})
	}
	return parallel.Run(ctx, r.c.cfg.Concurrency, tasks)
}

// readKinds sweeps the scope's VLANs, prefixes, IP addresses and ASNs
// among kinds, those sel selects (by id, a reread of changed ones; by
// stamp, the check of a view),
// through the same scope filters.
func (r *reading) readKinds(ctx context.Context, kinds []resource.Kind, sel changelog.Select) error {
	var vrfIDs, groupIDs, locIDs []string
	for id, name := range r.m.vrfs {
		if slices.Contains(r.scope.Namespaces, name) {
			vrfIDs = append(vrfIDs, strconv.Itoa(id))
		}
	}
	slices.Sort(vrfIDs)
	if slices.Contains(r.scope.Namespaces, GlobalNamespace) {
		vrfIDs = append(vrfIDs, "null")
	}
	for id, name := range r.m.groups {
		if slices.Contains(r.scope.VLANGroups, name) {
			groupIDs = append(groupIDs, strconv.Itoa(id))
		}
	}
	slices.Sort(groupIDs)
	for _, name := range r.scope.Locations {
		if id, ok := r.m.l.refs[resource.RefLocation].byName[name]; ok {
			locIDs = append(locIDs, strconv.Itoa(id))
		}
	}
	locFilter := r.c.cfg.LocationScope + "_id"

	// A scope name that resolves to nothing matches nothing: NetBox
	// answers 400 to a filter by an unknown id.
	var tasks []func(context.Context) error
	wants := func(k resource.Kind) bool { return slices.Contains(kinds, k) && sel.Wants(k) }
	if wants(resource.KindVLAN) {
		path, q := r.query(resource.KindVLAN)
		if len(r.scope.VLANGroups) > 0 {
			q["group_id"] = groupIDs
		}
		tasks = append(tasks, func(ctx context.Context) error {
			var err error
			r.vlans, err = changelog.Read(sel, resource.KindVLAN, idsPerRead, func(extra url.Values) ([]wireVLAN, error) {
				return sweepScoped[wireVLAN](ctx, r, path, q, extra, len(r.scope.VLANGroups) > 0)
			})
			return err
		})
	}
	if wants(resource.KindPrefix) {
		path, q := r.query(resource.KindPrefix)
		if len(r.scope.Namespaces) > 0 {
			q["vrf_id"] = vrfIDs
		}
		if len(r.scope.Locations) > 0 {
			q[locFilter] = locIDs
		}
		narrowed := len(r.scope.Namespaces) > 0 || len(r.scope.Locations) > 0
		tasks = append(tasks, func(ctx context.Context) error {
			var err error
			r.prefixes, err = changelog.Read(sel, resource.KindPrefix, idsPerRead, func(extra url.Values) ([]wirePrefix, error) {
				return sweepScoped[wirePrefix](ctx, r, path, q, extra, narrowed)
			})
			return err
		})
	}
	if wants(resource.KindIPAddress) {
		path, q := r.query(resource.KindIPAddress)
		if len(r.scope.Namespaces) > 0 {
			q["vrf_id"] = vrfIDs
		}
		tasks = append(tasks, func(ctx context.Context) error {
			var err error
			r.ips, err = changelog.Read(sel, resource.KindIPAddress, idsPerRead, func(extra url.Values) ([]wireIP, error) {
				return sweepScoped[wireIP](ctx, r, path, q, extra, len(r.scope.Namespaces) > 0)
			})
			return err
		})
	}
	if wants(resource.KindASN) {
		path, q := r.query(resource.KindASN)
		tasks = append(tasks, func(ctx context.Context) error {
			var err error
			r.asns, err = changelog.Read(sel, resource.KindASN, idsPerRead, func(extra url.Values) ([]wireASN, error) {
				return sweep[wireASN](ctx, r.c, path, httpapi.With(q, extra), r.t)
			})
			return err
		})
	}
	return parallel.Run(ctx, r.c.cfg.Concurrency, tasks)
}

// resolve fetches the VLANs that prefixes refer to when the VLAN sweep in
// scope did not include them.
func (r *reading) resolve(ctx context.Context) error {
	addVLANs := func(vs []wireVLAN) {
		for _, v := range vs {
			key := resource.VLANKey(r.m.groups[refID(v.Group)], v.VID)
			r.m.vlans[v.ID] = key
			r.c.learn(resource.Key{Kind: resource.KindVLAN, Name: key}, v.ID)
		}
	}
	addVLANs(r.vlans)
	var missing []int
	for _, p := range r.prefixes {
		if id := refID(p.VLAN); id != 0 && r.m.vlans[id] == "" && !slices.Contains(missing, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		vs, err := byIDs[wireVLAN](ctx, r.c, "/api/ipam/vlans/", missing, url.Values{"fields": {"id,group,vid"}}, r.t)
		if err != nil {
			return fmt.Errorf("vlans of prefixes: %w", err)
		}
		addVLANs(vs)
	}
	return nil
}

func (r *reading) owned(o resource.Object) bool {
	return r.scope.Owner != "" && o.Meta().Owner == r.scope.Owner
}

// objects maps what was read, keeping only what the scope asks for.
func (r *reading) objects() ([]resource.Object, error) {
	inLocations := func(l string) bool {
		return len(r.scope.Locations) == 0 || slices.Contains(r.scope.Locations, l)
	}
	inNamespaces := func(n string) bool {
		return len(r.scope.Namespaces) == 0 || slices.Contains(r.scope.Namespaces, n)
	}
	out := make([]resource.Object, 0, 1+len(r.vrfs)+len(r.groups)+len(r.vlans)+len(r.prefixes)+len(r.ips)+len(r.asns))
	if r.wants(resource.KindNamespace) {
		// The global table stands as a namespace nobody owns, so that
		// references to it resolve as in Nautobot.
		if inNamespaces(GlobalNamespace) && inLocations("") {
			out = append(out, &resource.Namespace{Name: GlobalNamespace})
		}
		for _, v := range r.vrfs {
			o := r.m.namespace(v)
			if inNamespaces(v.Name) && inLocations("") || r.owned(o) {
				out = append(out, o)
			}
		}
	}
	if r.wants(resource.KindVLANGroup) {
		for _, w := range r.groups {
			g, err := r.m.vlanGroup(w)
			if err != nil {
				return nil, err
			}
			if inLocations(g.Location) || r.owned(g) {
				out = append(out, g)
			}
		}
	}
	for _, w := range r.vlans {
		out = append(out, r.m.vlan(w))
	}
	for _, w := range r.prefixes {
		p, err := r.m.prefix(w)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	for _, w := range r.ips {
		ip, err := r.m.ip(w)
		if err != nil {
			return nil, err
		}
		out = append(out, ip)
	}
	for _, w := range r.asns {
		out = append(out, r.m.asn(w))
	}
	return out, nil
}
