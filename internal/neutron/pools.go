package neutron

import (
	"context"
	"log/slog"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
)

// The collections as their JSON lists are named; Neutron also routes
// "address-scopes", the API reference's spelling, to the same controller.
const (
	poolsPath  = "subnetpools"
	scopesPath = "address_scopes"
)

var (
	poolFields   = []string{"id", "name", "description", "prefixes", "ip_version", "address_scope_id", "default_prefixlen", "min_prefixlen", "max_prefixlen", "shared", "tags", "revision_number"}
	scopeFields  = []string{"id", "name", "ip_version", "shared"}
	pooledFields = []string{"id", "cidr", "network_id", "subnetpool_id"}
)

// PoolConfig says which site's subnet pools a PoolWriter handles and how
// ipsync marks what it owns there, as RangeConfig does for ranges.
type PoolConfig struct {
	Site       string
	Tag        string // default "managed-by-ipsync"
	OwnerField string // default "ipsync_owner"
}

// PoolWriter reads and writes a site's subnet pools and their address
// scopes. It is a reconcile target: its writes need the scope ids and the
// subnets its read learnt.
type PoolWriter struct {
	client *gophercloud.ServiceClient
	cfg    PoolConfig
	marker marker
	logger *slog.Logger
}

var _ reconcile.Target = (*PoolWriter)(nil)

// NewPoolWriter writes pools through r's connection. A nil logger discards.
func NewPoolWriter(r *Reader, cfg PoolConfig, logger *slog.Logger) *PoolWriter {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	logger = logger.With("component", "neutron-pools", "site", cfg.Site)
	return &PoolWriter{client: r.client, cfg: cfg, marker: newMarker(cfg.Tag, cfg.OwnerField, logger), logger: logger}
}

// Server is "Neutron", for messages.
func (w *PoolWriter) Server() string { return "Neutron" }

type wirePool struct {
	ID             string   `json:"id"`
	Name           string   `json:"name"`
	Description    string   `json:"description"`
	Prefixes       []string `json:"prefixes"`
	IPVersion      int      `json:"ip_version"`
	AddressScopeID string   `json:"address_scope_id"`
	DefaultLen     flexInt  `json:"default_prefixlen"`
	MinLen         flexInt  `json:"min_prefixlen"`
	MaxLen         flexInt  `json:"max_prefixlen"`
	Shared         bool     `json:"shared"`
	Tags           []string `json:"tags"`
	RevisionNumber int      `json:"revision_number"`
}

func (w wirePool) recordID() string { return w.ID }

type wireScope struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	IPVersion int    `json:"ip_version"`
	Shared    bool   `json:"shared"`
}

func (w wireScope) recordID() string { return w.ID }

// wirePooled is a subnet Neutron allocated from a pool.
type wirePooled struct {
	ID           string `json:"id"`
	CIDR         string `json:"cidr"`
	NetworkID    string `json:"network_id"`
	SubnetPoolID string `json:"subnetpool_id"`
}

func (w wirePooled) recordID() string { return w.ID }

// Read lists the site's address scopes, subnet pools, and the subnets
// allocated from the pools. Every scope and pool is listed, marked or not,
// so that one made by hand under a name or prefix the spec wants is a
// conflict instead of a second object.
func (w *PoolWriter) Read(ctx context.Context) (reconcile.State, error) {
	scopes, err := listAll[wireScope](ctx, w.client, scopesPath, url.Values{"fields": scopeFields}, DefaultPageSize, nil)
	if err != nil {
		return nil, err
	}
	pools, err := listAll[wirePool](ctx, w.client, poolsPath, url.Values{"fields": poolFields}, DefaultPageSize, nil)
	if err != nil {
		return nil, err
	}
	st := &poolState{w: w, scopeIDs: map[string]string{}, subnets: map[string][]wirePooled{}, poolsIn: map[string][]*resource.SubnetPool{}}
	namespaces := map[string]string{} // scope id -> namespace
	for _, s := range scopes {
		o := w.scope(s)
		namespaces[s.ID] = o.Namespace
		if _, dup := st.scopeIDs[o.Key().Name]; !dup {
			st.scopeIDs[o.Key().Name] = s.ID
		}
		st.objs = append(st.objs, o)
	}
	ids := make([]string, 0, len(pools))
	for _, p := range pools {
		o := w.pool(p, namespaces[p.AddressScopeID])
		st.objs = append(st.objs, o)
		st.pools = append(st.pools, o)
		if p.AddressScopeID != "" {
			st.poolsIn[p.AddressScopeID] = append(st.poolsIn[p.AddressScopeID], o)
		}
		ids = append(ids, p.ID)
	}
	if len(ids) > 0 {
		subs, err := listAll[wirePooled](ctx, w.client, "subnets", url.Values{"subnetpool_id": ids, "fields": pooledFields}, DefaultPageSize, nil)
		if err != nil {
			return nil, err
		}
		for _, s := range subs {
			st.subnets[s.SubnetPoolID] = append(st.subnets[s.SubnetPoolID], s)
		}
	}
	return st, nil
}

// scopeName is the Neutron name of the scope of namespace owned by o.
// Neutron gives address scopes neither tags nor a description, so the
// owner marker is the end of the name: "a11 (ipsync_owner=static:deploy)".
// A scope named just "a11" is one made by hand.
func (w *PoolWriter) scopeName(namespace string, o resource.Owner) string {
	return namespace + " (" + w.marker.ownerField + "=" + string(o) + ")"
}

func (w *PoolWriter) scope(s wireScope) *resource.AddressScope {
	ns, owner := s.Name, resource.Owner("")
	if i := strings.LastIndex(s.Name, " ("+w.marker.ownerField+"="); i >= 0 && strings.HasSuffix(s.Name, ")") {
		v := s.Name[i+len(" ("+w.marker.ownerField+"=") : len(s.Name)-1]
		if o, err := resource.ParseOwner(v); err == nil {
			ns, owner = s.Name[:i], o
		} else {
			w.logger.Warn("address scope has a malformed owner in its name; treating it as unmarked", "id", s.ID, "name", s.Name)
		}
	}
	return &resource.AddressScope{M: resource.Meta{Owner: owner, ID: s.ID}, Namespace: ns, IPVersion: s.IPVersion,
		Site: w.cfg.Site, Shared: s.Shared}
}

func (w *PoolWriter) pool(p wirePool, namespace string) *resource.SubnetPool {
	var ps []netip.Prefix
	for _, s := range p.Prefixes {
		if n, err := netip.ParsePrefix(s); err == nil {
			ps = append(ps, n)
		}
	}
	return &resource.SubnetPool{
		M:    resource.Meta{Owner: w.marker.owner(p.Tags, "subnet pool", p.ID), ID: p.ID, Version: strconv.Itoa(p.RevisionNumber)},
		Name: p.Name, Site: w.cfg.Site, Namespace: namespace, Prefixes: resource.MergePrefixes(ps),
		DefaultPrefixLen: int(p.DefaultLen), MinPrefixLen: int(p.MinLen), MaxPrefixLen: int(p.MaxLen),
		Shared: p.Shared, Description: p.Description,
	}
}
