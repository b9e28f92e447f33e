package cli

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/ipsync/ipsync/internal/config"
	"github.com/ipsync/ipsync/internal/drift"
	"github.com/ipsync/ipsync/internal/neutron"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sitesync"
)

// siteSource reads one site's Neutron and maps it to the objects it owns.
type siteSource struct {
	site   *config.Site
	reader *neutron.Reader
}

func (e *env) openSite(ctx context.Context, site *config.Site, opts ...neutron.ReaderOption) (*siteSource, error) {
	r, err := neutron.NewReader(ctx, neutronConfig(site), e.logger.With("site", site.Name), opts...)
	if err != nil {
		return nil, fmt.Errorf("site %s: %w", site.Name, err)
	}
	return &siteSource{site: site, reader: r}, nil
}

func neutronConfig(site *config.Site) neutron.Config {
	n := site.Neutron
	return neutron.Config{Endpoint: n.Endpoint, Auth: n.Auth, Cloud: n.Cloud, Region: n.Region, PageSize: n.PageSize, Concurrency: n.Concurrency}
}

func (s *siteSource) mapConfig(knownGroups map[string]bool) neutron.MapConfig {
	return neutron.MapConfig{Site: s.site.Name, Namespace: siteNamespace(s.site), NamespacePerNetwork: s.site.NamespacePerNetwork,
		PhysnetGroups: s.site.PhysnetGroups, Status: s.site.Status, TenantByProject: s.site.Tenants, KnownGroups: knownGroups}
}

// read reads the whole site. A failed or partial read is an error: the
// objects it did not see must not turn into deletes.
func (s *siteSource) read(ctx context.Context) (*neutron.Snapshot, error) {
	snap, err := s.reader.Read(ctx)
	if err != nil {
		return nil, fmt.Errorf("read neutron of site %s: %w", s.site.Name, err)
	}
	return snap, nil
}

// desired maps snap, the site's Neutron, to the objects it owns; server
// names the target in its leaks.
func (s *siteSource) desired(snap *neutron.Snapshot, current []resource.Object, server string) ([]resource.Object, []drift.Leak) {
	objs, report := neutron.Map(snap, s.mapConfig(sitesync.KnownGroups(current)))
	return objs, sitesync.Leaks(report, server)
}

// siteScope is what a site's run reads of the target: with snap, also the
// VLANs of the groups its physical networks map to that physnet_groups
// does not list (those named like the physical network), so that a VLAN
// already there is seen, as in a listed group.
func siteScope(site *config.Site, snap *neutron.Snapshot) scope.Scope {
	groups := slices.Collect(maps.Values(site.PhysnetGroups))
	if snap != nil {
		groups = append(groups, neutron.Groups(snap, neutron.MapConfig{PhysnetGroups: site.PhysnetGroups})...)
	}
	slices.Sort(groups)
	return scope.Site(resource.NeutronOwner(site.Name), siteNamespace(site), slices.Compact(groups))
}

// planGroups adds to groups those of the VLANs p writes: a saved plan's
// check reads them there, so that a VLAN made since at a VID the plan
// creates, in a group physnet_groups does not list, makes the plan stale
// instead of failing its create.
func planGroups(groups []string, p *plan.Plan) []string {
	out := slices.Clone(groups)
	for _, c := range p.Changes {
		for _, o := range []resource.Object{c.Desired, c.Current} {
			if v, ok := o.(*resource.VLAN); ok && !slices.Contains(out, v.Group) {
				out = append(out, v.Group)
			}
		}
	}
	slices.Sort(out)
	return out
}

// openNeutronTarget makes what the config lets ipsync write to the site's
// Neutron the job's target: its segment ranges, its subnet pools, or both.
func (e *env) openNeutronTarget(ctx context.Context, cfg *config.Config, site *config.Site, j *job) error {
	if !site.SegmentRanges && !site.SubnetPools {
		return fmt.Errorf("site %s: neither segment_ranges nor subnet_pools is enabled in the config; ipsync writes to a site's Neutron only what the site opts in to", site.Name)
	}
	r, err := neutron.NewReader(ctx, neutronConfig(site), e.logger.With("site", site.Name))
	if err != nil {
		return fmt.Errorf("site %s: %w", site.Name, err)
	}
	var t neutronTarget
	if site.SegmentRanges {
		t.ranges = reconcile.Stateless(neutron.NewRangeWriter(r, neutron.RangeConfig{Site: site.Name, Tag: cfg.Marker.Tag, OwnerField: cfg.Marker.CustomField},
			e.logger.With("site", site.Name)))
	}
	if site.SubnetPools {
		t.pools = neutron.NewPoolWriter(r, neutron.PoolConfig{Site: site.Name, Tag: cfg.Marker.Tag, OwnerField: cfg.Marker.CustomField},
			e.logger.With("site", site.Name))
	}
	j.target = t
	j.targetID = "neutron:" + site.Name
	j.server = "site " + site.Name + "'s Neutron"
	j.writeOK = func() error { return nil }
	return nil
}

// siteNeutronObjects are the spec objects the site's Neutron receives, of
// the kinds the site opts in to.
func siteNeutronObjects(site *config.Site, objs []resource.Object) []resource.Object {
	var out []resource.Object
	var pools []*resource.SubnetPool
	for _, o := range objs {
		switch x := o.(type) {
		case *resource.SegmentRange:
			if site.SegmentRanges && (x.Site == "" || x.Site == site.Name) {
				out = append(out, x)
			}
		case *resource.SubnetPool:
			if site.SubnetPools {
				pools = append(pools, x)
			}
		}
	}
	return append(out, neutron.PoolObjects(site.Name, pools)...)
}
