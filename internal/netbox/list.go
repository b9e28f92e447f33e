package netbox

import (
	"context"
	"maps"
	"net/url"
	"slices"
	"strconv"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sot"
)

// List reads every object in sc. It fails rather than return part of
// what NetBox holds.
func (c *Client) List(ctx context.Context, sc scope.Scope) ([]resource.Object, error) {
	objs, _, err := sot.List[int, *reading](ctx, c, sc)
	return objs, err
}

// Begin starts a read of sc with the lookups read now.
func (c *Client) Begin(ctx context.Context, sc scope.Scope, kinds []resource.Kind) (*reading, error) {
	l, err := c.fetchLookups(ctx, &httpapi.Tally{})
	if err != nil {
		return nil, err
	}
	return &reading{c: c, Of: sot.NewOf(sc, kinds), m: c.newMapper(l), k: newKnown(l)}, nil
}

// reading is one read: in progress, then what a plan made on it is
// checked and written with.
type reading struct {
	sot.Of
	c *Client
	m *mapper
	k *known // shared by the rereads of the read

	vrfs     []wireVRF
	groups   []wireVLANGroup
	vlans    []wireVLAN
	prefixes []wirePrefix
	ips      []wireIP
	asns     []wireASN
}

var _ sot.Reader[int] = (*reading)(nil)

func (r *reading) Names() sot.Known[int] {
	return sot.Known[int]{Namespaces: r.m.vrfs, Groups: r.m.groups, VLANs: r.m.vlans}
}

func (r *reading) ParseID(id string) (int, bool) {
	n, err := strconv.Atoi(id)
	return n, err == nil
}

func (r *reading) RefNames() map[resource.Kind]map[string]bool { return r.m.l.names() }

// Again is a read of want with r's lookups and names; a fork learns into
// copies of the names.
func (r *reading) Again(want []resource.Kind, fork bool) sot.Reader[int] {
	m := r.m
	if fork {
		cp := *r.m
		cp.vlans = maps.Clone(cp.vlans)
		m = &cp
	}
	return &reading{c: r.c, Of: sot.NewOf(r.Scope, want), m: m, k: r.k}
}

// VLANKeys reads the keys of the VLANs with the given ids.
func (r *reading) VLANKeys(ctx context.Context, ids []int) (map[int]string, error) {
	vs, err := byIDs[wireVLAN](ctx, r.c, "/api/ipam/vlans/", ids, url.Values{"fields": {"id,group,vid"}}, r.Tally)
	if err != nil {
		return nil, err
	}
	return sot.VLANKeys[int](vs, r.m.groups), nil
}

func (r *reading) query(k resource.Kind) (string, url.Values) {
	ep, _ := endpointOf(k)
	return ep.path, url.Values{"fields": {ep.fields}}
}

// LearnNamed takes the names of the VRFs and VLAN groups swept.
func (r *reading) LearnNamed() {
	r.m.vrfs = sot.LearnNames[int](r.vrfs, resource.KindNamespace, r.k.own.Learn)
	r.m.groups = sot.LearnNames[int](r.groups, resource.KindVLANGroup, r.k.own.Learn)
}

// SweepNamed reads the VRFs and VLAN groups among kinds that sel selects:
// every one for a whole read, those stamped since for the check of a view.
// Either kind is read whole, not by the scope, as List reads it.
func (r *reading) SweepNamed(ctx context.Context, sel changelog.Select, kinds []resource.Kind) error {
	return sot.Sweep(ctx, r.c.cfg.Concurrency, kinds, sel,
		sot.Into(resource.KindNamespace, &r.vrfs, 0, func(ctx context.Context, extra url.Values) ([]wireVRF, error) {
			p, q := r.query(resource.KindNamespace)
			return sweep[wireVRF](ctx, r.c, p, httpapi.With(q, extra), r.Tally)
		}),
		sot.Into(resource.KindVLANGroup, &r.groups, 0, func(ctx context.Context, extra url.Values) ([]wireVLANGroup, error) {
			p, q := r.query(resource.KindVLANGroup)
			return sweep[wireVLANGroup](ctx, r.c, p, httpapi.With(q, extra), r.Tally)
		}))
}

// SweepKinds sweeps the scope's VLANs, prefixes, IP addresses and ASNs
// among kinds, those sel selects (by id, a reread of changed ones; by
// stamp, the check of a view),
// through the same scope filters.
func (r *reading) SweepKinds(ctx context.Context, kinds []resource.Kind, sel changelog.Select) error {
	var vrfIDs, groupIDs, locIDs []string
	for id, name := range r.m.vrfs {
		if slices.Contains(r.Scope.Namespaces, name) {
			vrfIDs = append(vrfIDs, strconv.Itoa(id))
		}
	}
	slices.Sort(vrfIDs)
	if slices.Contains(r.Scope.Namespaces, GlobalNamespace) {
		vrfIDs = append(vrfIDs, "null")
	}
	for id, name := range r.m.groups {
		if slices.Contains(r.Scope.VLANGroups, name) {
			groupIDs = append(groupIDs, strconv.Itoa(id))
		}
	}
	slices.Sort(groupIDs)
	for _, name := range r.Scope.Locations {
		if id, ok := r.m.l.refs[resource.RefLocation].byName[name]; ok {
			locIDs = append(locIDs, strconv.Itoa(id))
		}
	}

	// A scope name that resolves to nothing matches nothing: NetBox
	// answers 400 to a filter by an unknown id.
	vlans, prefixes, ips := url.Values{}, url.Values{}, url.Values{}
	if len(r.Scope.VLANGroups) > 0 {
		vlans["group_id"] = groupIDs
	}
	if len(r.Scope.Namespaces) > 0 {
		prefixes["vrf_id"], ips["vrf_id"] = vrfIDs, vrfIDs
	}
	if len(r.Scope.Locations) > 0 {
		prefixes[r.c.cfg.LocationScope+"_id"] = locIDs
	}
	scoped := func(k resource.Kind, filter url.Values) (string, url.Values, bool) {
		path, fields := r.query(k)
		return path, httpapi.With(fields, filter), len(filter) > 0
	}
	return sot.Sweep(ctx, r.c.cfg.Concurrency, kinds, sel,
		sot.Into(resource.KindVLAN, &r.vlans, sot.IDsPerRead, func(ctx context.Context, extra url.Values) ([]wireVLAN, error) {
			path, q, narrowed := scoped(resource.KindVLAN, vlans)
			return sweepScoped[wireVLAN](ctx, r, path, q, extra, narrowed)
		}),
		sot.Into(resource.KindPrefix, &r.prefixes, sot.IDsPerRead, func(ctx context.Context, extra url.Values) ([]wirePrefix, error) {
			path, q, narrowed := scoped(resource.KindPrefix, prefixes)
			return sweepScoped[wirePrefix](ctx, r, path, q, extra, narrowed)
		}),
		sot.Into(resource.KindIPAddress, &r.ips, sot.IDsPerRead, func(ctx context.Context, extra url.Values) ([]wireIP, error) {
			path, q, narrowed := scoped(resource.KindIPAddress, ips)
			return sweepScoped[wireIP](ctx, r, path, q, extra, narrowed)
		}),
		sot.Into(resource.KindASN, &r.asns, sot.IDsPerRead, func(ctx context.Context, extra url.Values) ([]wireASN, error) {
			p, q := r.query(resource.KindASN)
			return sweep[wireASN](ctx, r.c, p, httpapi.With(q, extra), r.Tally)
		}))
}

// Resolve has nothing to read besides VLANs: objects name their VRF and
// group by id, and both are read whole.
func (r *reading) Resolve(context.Context) error { return nil }

func (r *reading) SweptVLANs() (map[int]string, []int) {
	var named []int
	for _, p := range r.prefixes {
		if id := refID(p.VLAN); id != 0 {
			named = append(named, id)
		}
	}
	return sot.VLANKeys[int](r.vlans, r.m.groups), named
}

func (r *reading) Learn(k resource.Key, id int) { r.k.own.Learn(k, id) }

func (r *reading) Objects() ([]resource.Object, error) {
	// The global table stands as a namespace nobody owns, so that
	// references to it resolve as in Nautobot.
	global := []wireVRF{{Name: GlobalNamespace}}
	return sot.Objects(r.Scope, r.Kinds, 1+len(r.vrfs)+len(r.groups)+len(r.vlans)+len(r.prefixes)+len(r.ips)+len(r.asns),
		sot.MapEach(global, func(v wireVRF) *resource.Namespace { return &resource.Namespace{Name: v.Name} }),
		sot.MapEach(r.vrfs, r.m.namespace), sot.Map(r.groups, r.m.vlanGroup), sot.MapEach(r.vlans, r.m.vlan),
		sot.Map(r.prefixes, r.m.prefix), sot.Map(r.ips, r.m.ip), sot.MapEach(r.asns, r.m.asn))
}
