package nautobot

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sot"
)

// List reads every object in sc. It fails rather than return part of
// what Nautobot holds.
func (c *Client) List(ctx context.Context, sc scope.Scope) ([]resource.Object, error) {
	objs, _, err := sot.List[string, *reading](ctx, c, sc)
	return objs, err
}

// Begin starts a read of sc with the lookups read now.
func (c *Client) Begin(ctx context.Context, sc scope.Scope, kinds []resource.Kind) (*reading, error) {
	l, err := c.fetchLookups(ctx, &httpapi.Tally{})
	if err != nil {
		return nil, err
	}
	return c.reading(sc, kinds, l, nil), nil
}

// reading is a read of sc with the lookups l and, when set, the names of
// an earlier read.
func (c *Client) reading(sc scope.Scope, kinds []resource.Kind, l *lookups, n *savedNames) *reading {
	m := &mapper{l: l, owner: c.ownerMarker(), vniField: c.cfg.VNIField, vlans: map[string]string{}, prefixNS: map[string]string{}}
	if n != nil {
		m.namespaces, m.groups = n.Namespaces, n.Groups
		maps.Copy(m.vlans, n.VLANs)
		maps.Copy(m.prefixNS, n.PrefixNS)
	}
	for id, tag := range l.refs[refTag] {
		if tag.Name == c.cfg.Tag {
			m.managedTag = id
		}
	}
	return &reading{c: c, Of: sot.NewOf(sc, kinds), m: m, k: newKnown(l)}
}

// reading is one read: in progress, then what a plan made on it is
// checked and written with.
type reading struct {
	sot.Of
	c *Client
	m *mapper
	k *known // shared by the rereads of the read

	nss      []wireNamespace
	groups   []wireVLANGroup
	vlans    []wireVLAN
	prefixes []wirePrefix
	ips      []wireIP
	asns     []wireASN
}

var _ sot.Reader[string] = (*reading)(nil)

func (r *reading) Names() sot.Known[string] {
	return sot.Known[string]{Namespaces: r.m.namespaces, Groups: r.m.groups, VLANs: r.m.vlans}
}

func (r *reading) ParseID(id string) (string, bool) { return id, true }

func (r *reading) RefNames() map[resource.Kind]map[string]bool { return r.m.l.names() }

// Again is a read of want with r's lookups and names; a fork learns into
// copies of the names.
func (r *reading) Again(want []resource.Kind, fork bool) sot.Reader[string] {
	m := r.m
	if fork {
		cp := *r.m
		cp.vlans, cp.prefixNS = maps.Clone(cp.vlans), maps.Clone(cp.prefixNS)
		m = &cp
	}
	return &reading{c: r.c, Of: sot.NewOf(r.Scope, want), m: m, k: r.k}
}

// VLANKeys reads the keys of the VLANs with the given ids.
func (r *reading) VLANKeys(ctx context.Context, ids []string) (map[string]string, error) {
	vs, err := byIDs[wireVLAN](ctx, r.c, "/api/ipam/vlans/", ids, r.Tally)
	if err != nil {
		return nil, err
	}
	return sot.VLANKeys[string](vs, r.m.groups), nil
}

// LearnNamed takes the names of the namespaces and VLAN groups swept.
func (r *reading) LearnNamed() {
	r.m.namespaces = sot.LearnNames[string](r.nss, resource.KindNamespace, r.k.own.Learn)
	r.m.groups = sot.LearnNames[string](r.groups, resource.KindVLANGroup, r.k.own.Learn)
}

// SweepNamed reads the namespaces and VLAN groups among kinds that sel
// selects: every one for a whole read, those stamped since for the check
// of a view. Either kind is read whole, not by the scope, as List reads it.
func (r *reading) SweepNamed(ctx context.Context, sel changelog.Select, kinds []resource.Kind) error {
	return sot.Sweep(ctx, r.c.cfg.Concurrency, kinds, sel,
		sot.Into(resource.KindNamespace, &r.nss, 0, func(ctx context.Context, extra url.Values) ([]wireNamespace, error) {
			return sweep[wireNamespace](ctx, r.c, "/api/ipam/namespaces/", extra, r.Tally)
		}),
		sot.Into(resource.KindVLANGroup, &r.groups, 0, func(ctx context.Context, extra url.Values) ([]wireVLANGroup, error) {
			return sweep[wireVLANGroup](ctx, r.c, "/api/ipam/vlan-groups/", extra, r.Tally)
		}))
}

// SweepKinds sweeps the scope's VLANs, prefixes, IP addresses and ASNs
// among kinds, those sel selects (by id, a reread of changed ones; by
// stamp, the check of a view).
func (r *reading) SweepKinds(ctx context.Context, kinds []resource.Kind, sel changelog.Select) error {
	var nsIDs, groupIDs, locIDs []string
	for id, name := range r.m.namespaces {
		if slices.Contains(r.Scope.Namespaces, name) {
			nsIDs = append(nsIDs, id)
		}
	}
	for id, name := range r.m.groups {
		if slices.Contains(r.Scope.VLANGroups, name) {
			groupIDs = append(groupIDs, id)
		}
	}
	for id, l := range r.m.l.refs[resource.RefLocation] {
		if slices.Contains(r.Scope.Locations, l.Name) {
			locIDs = append(locIDs, id)
		}
	}
	slices.Sort(nsIDs)
	slices.Sort(groupIDs)
	slices.Sort(locIDs)

	// A scope name that resolves to nothing matches nothing: filtering by
	// an unknown name would be a 400 under strict filtering.
	vlans, prefixes, ips := url.Values{}, url.Values{}, url.Values{}
	if len(r.Scope.VLANGroups) > 0 {
		vlans["vlan_group"] = groupIDs
	}
	if len(r.Scope.Namespaces) > 0 {
		prefixes["namespace"], ips["namespace"] = nsIDs, nsIDs
	}
	if len(r.Scope.Locations) > 0 {
		prefixes["locations"] = locIDs
	}
	return sot.Sweep(ctx, r.c.cfg.Concurrency, kinds, sel,
		sot.Into(resource.KindVLAN, &r.vlans, sot.IDsPerRead, func(ctx context.Context, extra url.Values) ([]wireVLAN, error) {
			return sweepScoped(ctx, r, "/api/ipam/vlans/", vlans, extra, len(vlans) > 0, sweep[wireVLAN])
		}),
		sot.Into(resource.KindPrefix, &r.prefixes, sot.IDsPerRead, func(ctx context.Context, extra url.Values) ([]wirePrefix, error) {
			return sweepScoped(ctx, r, "/api/ipam/prefixes/", prefixes, extra, len(prefixes) > 0, r.sweepPrefixes)
		}),
		sot.Into(resource.KindIPAddress, &r.ips, sot.IDsPerRead, func(ctx context.Context, extra url.Values) ([]wireIP, error) {
			return sweepScoped(ctx, r, "/api/ipam/ip-addresses/", ips, extra, len(ips) > 0, sweep[wireIP])
		}),
		sot.Into(resource.KindASN, &r.asns, sot.IDsPerRead, func(ctx context.Context, extra url.Values) ([]wireASN, error) {
			got, err := sweep[wireASN](ctx, r.c, "/api/plugins/bgp/autonomous-systems/", extra, r.Tally)
			if apiErr, ok := errors.AsType[*APIError](err); ok && apiErr.Status == http.StatusNotFound {
				r.c.log.Warn("the nautobot-bgp-models plugin is not installed; reading no ASNs")
				return nil, nil
			}
			return got, err
		}))
}

// Resolve fetches the VLANs that prefixes refer to and the prefixes that
// parent IP addresses when the sweeps in scope did not include them.
func (r *reading) Resolve(ctx context.Context) error {
	for _, p := range r.prefixes {
		r.m.prefixNS[p.ID] = refID(p.Namespace)
	}
	var missing []string
	seen := map[string]bool{}
	for _, ip := range r.ips {
		if id := refID(ip.Parent); id != "" && !seen[id] {
			seen[id] = true
			if _, ok := r.m.prefixNS[id]; !ok {
				missing = append(missing, id)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	ps, err := byIDs[wirePrefix](ctx, r.c, "/api/ipam/prefixes/", missing, r.Tally)
	if err != nil {
		return fmt.Errorf("parents of ip addresses: %w", err)
	}
	for _, p := range ps {
		r.m.prefixNS[p.ID] = refID(p.Namespace)
	}
	return nil
}

func (r *reading) SweptVLANs() (map[string]string, []string) {
	var named []string
	for _, p := range r.prefixes {
		if id := refID(p.VLAN); id != "" {
			named = append(named, id)
		}
	}
	return sot.VLANKeys[string](r.vlans, r.m.groups), named
}

func (r *reading) Learn(k resource.Key, id string) { r.k.own.Learn(k, id) }

func (r *reading) Objects() ([]resource.Object, error) {
	return sot.Objects(r.Scope, r.Kinds, len(r.nss)+len(r.groups)+len(r.vlans)+len(r.prefixes)+len(r.ips)+len(r.asns),
		sot.MapEach(r.nss, r.m.namespace), sot.Map(r.groups, r.m.vlanGroup), sot.MapEach(r.vlans, r.m.vlan),
		sot.Map(r.prefixes, r.m.prefix), sot.Map(r.ips, r.m.ip), sot.MapEach(r.asns, r.m.asn))
}
