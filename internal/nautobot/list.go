package nautobot

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/parallel"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// kindsOf are the kinds s reads.
func kindsOf(s scope.Scope) ([]resource.Kind, error) {
	if len(s.Kinds) == 0 {
		return nautobotKinds(), nil
	}
	for _, k := range s.Kinds {
		if _, ok := endpointOf(k); !ok {
			return nil, fmt.Errorf("nautobot holds no %s objects", k)
		}
	}
	return s.Kinds, nil
}

// List reads every object in sc. It fails rather than return part of
// what Nautobot holds.
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
		return nil, nil, fmt.Errorf("read nautobot: %w", err)
	}
	r := &reading{c: c, t: t, scope: sc, want: kinds, m: &mapper{l: l, owner: c.ownerMarker(), vniField: c.cfg.VNIField}}
	for id, tag := range l.refs[refTag] {
		if tag.Name == c.cfg.Tag {
			r.m.managedTag = id
		}
	}
	if err := r.read(ctx); err != nil {
		return nil, nil, fmt.Errorf("read nautobot: %w", err)
	}
	objs, err := r.objects()
	if err != nil {
		return nil, nil, fmt.Errorf("read nautobot: %w", err)
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

	nss      []wireNamespace
	groups   []wireVLANGroup
	vlans    []wireVLAN
	prefixes []wirePrefix
	ips      []wireIP
	asns     []wireASN
}

func (r *reading) wants(k resource.Kind) bool { return slices.Contains(r.want, k) }

// read sweeps the kinds in scope. Namespaces and VLAN groups are always
// read whole: they are few, and other objects are named by them.
func (r *reading) read(ctx context.Context) error {
	if err := r.readNamed(ctx); err != nil {
		return err
	}
	if err := r.readKinds(ctx, r.want, changelog.Select{}); err != nil {
		return err
	}
	return r.resolve(ctx)
}

// readNamed reads every namespace and VLAN group, and learns their names.
func (r *reading) readNamed(ctx context.Context) error {
	if err := r.sweepNamed(ctx, changelog.Select{}, []resource.Kind{resource.KindNamespace, resource.KindVLANGroup}); err != nil {
		return err
	}
	r.m.namespaces, r.m.groups = map[string]string{}, map[string]string{}
	for _, n := range r.nss {
		r.m.namespaces[n.ID] = n.Name
		r.c.learn(resource.Key{Kind: resource.KindNamespace, Name: n.Name}, n.ID)
	}
	for _, g := range r.groups {
		r.m.groups[g.ID] = g.Name
		r.c.learn(resource.Key{Kind: resource.KindVLANGroup, Name: g.Name}, g.ID)
	}
	return nil
}

// sweepNamed reads the namespaces and VLAN groups among kinds that sel
// selects: every one for a whole read, those stamped since for the check
// of a view. Either kind is read whole, not by the scope, as List reads it.
func (r *reading) sweepNamed(ctx context.Context, sel changelog.Select, kinds []resource.Kind) error {
	var tasks []func(context.Context) error
	if slices.Contains(kinds, resource.KindNamespace) {
		tasks = append(tasks, func(ctx context.Context) error {
			var err error
			r.nss, err = changelog.Read(sel, resource.KindNamespace, 0, func(extra url.Values) ([]wireNamespace, error) {
				return sweep[wireNamespace](ctx, r.c, "/api/ipam/namespaces/", extra, r.t)
			})
			return err
		})
	}
	if slices.Contains(kinds, resource.KindVLANGroup) {
		tasks = append(tasks, func(ctx context.Context) error {
			var err error
			r.groups, err = changelog.Read(sel, resource.KindVLANGroup, 0, func(extra url.Values) ([]wireVLANGroup, error) {
				return sweep[wireVLANGroup](ctx, r.c, "/api/ipam/vlan-groups/", extra, r.t)
			})
			return err
		})
	}
	return parallel.Run(ctx, r.c.cfg.Concurrency, tasks)
}

// readKinds sweeps the scope's VLANs, prefixes, IP addresses and ASNs
// among kinds, those sel selects (by id, a reread of changed ones; by
// stamp, the check of a view).
func (r *reading) readKinds(ctx context.Context, kinds []resource.Kind, sel changelog.Select) error {
	var nsIDs, groupIDs, locIDs []string
	for id, name := range r.m.namespaces {
		if slices.Contains(r.scope.Namespaces, name) {
			nsIDs = append(nsIDs, id)
		}
	}
	for id, name := range r.m.groups {
		if slices.Contains(r.scope.VLANGroups, name) {
			groupIDs = append(groupIDs, id)
		}
	}
	for id, l := range r.m.l.refs[resource.RefLocation] {
		if slices.Contains(r.scope.Locations, l.Name) {
			locIDs = append(locIDs, id)
		}
	}
	slices.Sort(nsIDs)
	slices.Sort(groupIDs)
	slices.Sort(locIDs)

	// A scope name that resolves to nothing matches nothing: filtering by
	// an unknown name would be a 400 under strict filtering.
	var tasks []func(context.Context) error
	wants := func(k resource.Kind) bool { return slices.Contains(kinds, k) && sel.Wants(k) }
	if wants(resource.KindVLAN) {
		q := url.Values{}
		if len(r.scope.VLANGroups) > 0 {
			q["vlan_group"] = groupIDs
		}
		tasks = append(tasks, func(ctx context.Context) error {
			got, err := changelog.Read(sel, resource.KindVLAN, idsPerRead, func(extra url.Values) ([]wireVLAN, error) {
				return sweepScoped(ctx, r, "/api/ipam/vlans/", q, extra, len(r.scope.VLANGroups) > 0, sweep[wireVLAN])
			})
			r.vlans = got
			return err
		})
	}
	if wants(resource.KindPrefix) {
		q := url.Values{}
		if len(r.scope.Namespaces) > 0 {
			q["namespace"] = nsIDs
		}
		if len(r.scope.Locations) > 0 {
			q["locations"] = locIDs
		}
		narrowed := len(r.scope.Namespaces) > 0 || len(r.scope.Locations) > 0
		tasks = append(tasks, func(ctx context.Context) error {
			got, err := changelog.Read(sel, resource.KindPrefix, idsPerRead, func(extra url.Values) ([]wirePrefix, error) {
				return sweepScoped(ctx, r, "/api/ipam/prefixes/", q, extra, narrowed, r.sweepPrefixes)
			})
			r.prefixes = got
			return err
		})
	}
	if wants(resource.KindIPAddress) {
		q := url.Values{}
		if len(r.scope.Namespaces) > 0 {
			q["namespace"] = nsIDs
		}
		tasks = append(tasks, func(ctx context.Context) error {
			got, err := changelog.Read(sel, resource.KindIPAddress, idsPerRead, func(extra url.Values) ([]wireIP, error) {
				return sweepScoped(ctx, r, "/api/ipam/ip-addresses/", q, extra, len(r.scope.Namespaces) > 0, sweep[wireIP])
			})
			r.ips = got
			return err
		})
	}
	if wants(resource.KindASN) {
		tasks = append(tasks, func(ctx context.Context) error {
			got, err := changelog.Read(sel, resource.KindASN, idsPerRead, func(extra url.Values) ([]wireASN, error) {
				return sweep[wireASN](ctx, r.c, "/api/plugins/bgp/autonomous-systems/", extra, r.t)
			})
			if apiErr, ok := errors.AsType[*APIError](err); ok && apiErr.Status == http.StatusNotFound {
				r.c.log.Warn("the nautobot-bgp-models plugin is not installed; reading no ASNs")
				return nil
			}
			r.asns = got
			return err
		})
	}
	return parallel.Run(ctx, r.c.cfg.Concurrency, tasks)
}

// idsPerRead keeps a reread's URLs short enough for the proxies in front
// of Nautobot (a UUID is 36 characters).
const idsPerRead = 100

// resolve fetches the VLANs that prefixes refer to and the prefixes that
// parent IP addresses when the sweeps in scope did not include them.
func (r *reading) resolve(ctx context.Context) error {
	if r.m.vlans == nil {
		r.m.vlans = map[string]string{}
	}
	addVLANs := func(vs []wireVLAN) {
		for _, v := range vs {
			key := resource.VLANKey(r.m.groups[refID(v.Group)], v.VID)
			r.m.vlans[v.ID] = key
			r.c.learn(resource.Key{Kind: resource.KindVLAN, Name: key}, v.ID)
		}
	}
	addVLANs(r.vlans)
	if r.m.prefixNS == nil {
		r.m.prefixNS = make(map[string]string, len(r.prefixes))
	}
	for _, p := range r.prefixes {
		r.m.prefixNS[p.ID] = refID(p.Namespace)
	}
	var missingVLANs, missingPrefixes []string
	for _, p := range r.prefixes {
		if id := refID(p.VLAN); id != "" && r.m.vlans[id] == "" && !slices.Contains(missingVLANs, id) {
			missingVLANs = append(missingVLANs, id)
		}
	}
	seen := map[string]bool{}
	for _, ip := range r.ips {
		if id := refID(ip.Parent); id != "" && !seen[id] {
			seen[id] = true
			if _, ok := r.m.prefixNS[id]; !ok {
				missingPrefixes = append(missingPrefixes, id)
			}
		}
	}
	if len(missingVLANs) > 0 {
		vs, err := byIDs[wireVLAN](ctx, r.c, "/api/ipam/vlans/", missingVLANs, r.t)
		if err != nil {
			return fmt.Errorf("vlans of prefixes: %w", err)
		}
		addVLANs(vs)
	}
	if len(missingPrefixes) > 0 {
		ps, err := byIDs[wirePrefix](ctx, r.c, "/api/ipam/prefixes/", missingPrefixes, r.t)
		if err != nil {
			return fmt.Errorf("parents of ip addresses: %w", err)
		}
		for _, p := range ps {
			r.m.prefixNS[p.ID] = refID(p.Namespace)
		}
	}
	return nil
}

func (r *reading) owned(o resource.Object) bool {
	return r.scope.Owner != "" && o.Meta().Owner == r.scope.Owner
}

// objects maps what was read, keeping only what the scope asks for.
func (r *reading) objects() ([]resource.Object, error) {
	inLocations := func(l *ref) bool {
		return len(r.scope.Locations) == 0 || slices.Contains(r.scope.Locations, r.m.ref(resource.RefLocation, l))
	}
	out := make([]resource.Object, 0, len(r.nss)+len(r.groups)+len(r.vlans)+len(r.prefixes)+len(r.ips)+len(r.asns))
	if r.wants(resource.KindNamespace) {
		for _, n := range r.nss {
			o := r.m.namespace(n)
			if (len(r.scope.Namespaces) == 0 || slices.Contains(r.scope.Namespaces, n.Name)) && inLocations(n.Location) || r.owned(o) {
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
			if inLocations(w.Location) || r.owned(g) {
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
