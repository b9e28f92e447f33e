package neutron

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// poolState is one read of a site's pools: what plans are checked against
// and written through.
type poolState struct {
	w    *PoolWriter
	objs []resource.Object
	// scopeIDs maps a scope's key name to its id (the first one read, if
	// Neutron holds several of one name).
	scopeIDs map[string]string
	pools    []*resource.SubnetPool
	poolsIn  map[string][]*resource.SubnetPool // scope id -> the pools in it
	subnets  map[string][]wirePooled           // pool id -> subnets allocated from it
}

func (s *poolState) Objects() []resource.Object               { return s.objs }
func (s *poolState) Names() map[resource.Kind]map[string]bool { return nil }

// AsStored fills in the prefix lengths Neutron chooses when a pool leaves
// them out: minimum 8 (IPv4) or 64 (IPv6), the minimum as default, and
// the whole address as maximum.
func (s *poolState) AsStored(o resource.Object) resource.Object {
	p, ok := o.(*resource.SubnetPool)
	if !ok || len(p.Prefixes) == 0 || (p.MinPrefixLen != 0 && p.DefaultPrefixLen != 0 && p.MaxPrefixLen != 0) {
		return o
	}
	q := resource.Clone(p).(*resource.SubnetPool)
	if q.MinPrefixLen == 0 {
		q.MinPrefixLen = 8
		if q.IPVersion() == 6 {
			q.MinPrefixLen = 64
		}
	}
	if q.DefaultPrefixLen == 0 {
		q.DefaultPrefixLen = q.MinPrefixLen
	}
	if q.MaxPrefixLen == 0 {
		q.MaxPrefixLen = q.Prefixes[0].Addr().BitLen()
	}
	return q
}

// Check refuses a pool whose prefixes overlap another pool's: Neutron
// refuses that only within one address scope, and two pools handing out
// one range are what the spec exists to prevent. A pool made by hand over
// the spec's prefixes is a conflict to settle by hand (or to adopt, by
// giving the spec pool its name).
func (s *poolState) Check(c plan.Change, p *plan.Plan) error {
	return errors.Join(s.checkDesired(c.Desired), s.checkChange(c, p))
}

func (s *poolState) checkDesired(o resource.Object) error {
	d, ok := o.(*resource.SubnetPool)
	if !ok {
		return nil
	}
	var errs []error
	for _, c := range s.pools {
		if c.Name == d.Name {
			continue
		}
		for _, p := range d.Prefixes {
			if q, ok := overlapping(c.Prefixes, p); ok {
				errs = append(errs, fmt.Errorf("%s overlaps %s of subnet pool %q (%s, %s) in Neutron", p, q, c.Name, c.M.ID, ownerText(c.M.Owner)))
			}
		}
	}
	return errors.Join(errs...)
}

func overlapping(ps []netip.Prefix, p netip.Prefix) (netip.Prefix, bool) {
	for _, q := range ps {
		if q.Overlaps(p) {
			return q, true
		}
	}
	return netip.Prefix{}, false
}

func ownerText(o resource.Owner) string {
	if o == "" {
		return "made by hand"
	}
	return "owned by " + string(o)
}

// checkChange refuses what Neutron would refuse half way through an
// apply, or what would strand what it allocated:
//   - a pool losing prefixes: Neutron only ever adds prefixes to a pool,
//     and subnets allocated from the prefixes dropped would be left
//     outside it;
//   - a pool deleted while subnets are allocated from it;
//   - a pool's shared flag changed, which Neutron keeps as created;
//   - an address scope deleted while pools the plan keeps are in it (a
//     pool the plan moves to another namespace is no longer kept there).
func (s *poolState) checkChange(c plan.Change, p *plan.Plan) error {
	switch cur := c.Current.(type) {
	case *resource.SubnetPool:
		subs := s.subnets[cur.M.ID]
		switch c.Action {
		case plan.Delete:
			if len(subs) > 0 {
				return fmt.Errorf("subnet pool %q still has %d subnets allocated from it: %s", cur.Name, len(subs), subnetList(subs))
			}
		case plan.Update, plan.Adopt:
			d := c.Desired.(*resource.SubnetPool)
			var errs []error
			if d.Shared != cur.Shared {
				errs = append(errs, fmt.Errorf("neutron cannot change shared of a subnet pool (%v -> %v); remove the pool from the spec so that it is deleted, then declare it anew (a pool of a new name over the same prefixes would overlap it until it is gone)", cur.Shared, d.Shared))
			}
			var dropped []string
			for _, q := range cur.Prefixes {
				if !resource.Covers(d.Prefixes, q) {
					dropped = append(dropped, q.String())
				}
			}
			if len(dropped) > 0 {
				var stranded []wirePooled
				for _, sn := range subs {
					if n, err := netip.ParsePrefix(sn.CIDR); err != nil || !resource.Covers(d.Prefixes, n) {
						stranded = append(stranded, sn)
					}
				}
				msg := fmt.Sprintf("the spec drops %s from subnet pool %q; Neutron only ever adds prefixes to a pool", strings.Join(dropped, ", "), cur.Name)
				if len(stranded) > 0 {
					msg += fmt.Sprintf(", and %d subnets allocated from it lie outside the new prefixes: %s", len(stranded), subnetList(stranded))
				} else {
					msg += "; remove the pool from the spec so that it is deleted, then declare it anew"
				}
				errs = append(errs, errors.New(msg))
			}
			return errors.Join(errs...)
		}
	case *resource.AddressScope:
		if c.Action != plan.Delete {
			return nil
		}
		// A pool the plan deletes, or moves to another namespace's scope
		// (an update, written before the deletes), leaves the scope.
		leaving := map[string]bool{}
		for _, pc := range p.Changes {
			switch {
			case pc.Action == plan.Delete && pc.Current != nil:
				leaving[pc.Current.Meta().ID] = true
			case (pc.Action == plan.Update || pc.Action == plan.Adopt) && pc.Current != nil:
				if d, ok := pc.Desired.(*resource.SubnetPool); ok && d.Scope() != cur.Key() {
					leaving[pc.Current.Meta().ID] = true
				}
			}
		}
		var users []string
		for _, u := range s.poolsIn[cur.M.ID] {
			if !leaving[u.M.ID] {
				users = append(users, fmt.Sprintf("%q (%s, %s)", u.Name, u.M.ID, ownerText(u.M.Owner)))
			}
		}
		if len(users) > 0 {
			return fmt.Errorf("address scope %s is used by subnet pools %s; Neutron keeps a scope while pools use it", cur.Key().Name, strings.Join(users, ", "))
		}
	}
	return nil
}

func subnetList(subs []wirePooled) string {
	s := make([]string, len(subs))
	for i, sn := range subs {
		s[i] = fmt.Sprintf("%s (%s, network %s)", sn.ID, sn.CIDR, sn.NetworkID)
	}
	return strings.Join(s, ", ")
}

func (s *poolState) Apply(ctx context.Context, changes []plan.Change) (int, error) {
	return s.w.apply(ctx, s, changes)
}
