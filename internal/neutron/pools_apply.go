package neutron

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// apply writes the changes in order and returns how many it wrote,
// stopping at the first failure. A pool's address scope is found among
// those st read, or those this apply made before it (scopes come first in
// a plan's creates). Pool updates and deletes carry the planned revision
// (If-Match); Neutron keeps no revision of address scopes.
func (w *PoolWriter) apply(ctx context.Context, st *poolState, changes []plan.Change) (int, error) {
	scopes := maps.Clone(st.scopeIDs)
	writes := 0
	for _, c := range changes {
		if !c.Action.Writes() {
			continue
		}
		var err error
		switch c.Key.Kind {
		case resource.KindAddressScope:
			err = w.writeScope(ctx, c, scopes)
		case resource.KindSubnetPool:
			err = w.writePool(ctx, c, scopes)
		default:
			err = fmt.Errorf("this writer writes only subnet pools and address scopes")
		}
		if err != nil {
			return writes, fmt.Errorf("%s %s: %w", c.Action, c.Key, err)
		}
		writes++
	}
	return writes, nil
}

func (w *PoolWriter) writeScope(ctx context.Context, c plan.Change, scopes map[string]string) error {
	if c.Action == plan.Delete {
		_, err := w.client.Delete(ctx, w.client.ServiceURL(scopesPath, c.Current.Meta().ID), &gophercloud.RequestOpts{OkCodes: []int{http.StatusNoContent}})
		if gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			return nil
		}
		return err
	}
	d, ok := c.Desired.(*resource.AddressScope)
	if !ok {
		return fmt.Errorf("desired object is %T, want an address scope", c.Desired)
	}
	if err := checkOwner(d.M.Owner); err != nil {
		return err
	}
	name := w.scopeName(d.Namespace, d.M.Owner)
	if c.Action == plan.Create {
		var created struct {
			Scope wireScope `json:"address_scope"`
		}
		body := map[string]any{"name": name, "ip_version": d.IPVersion, "shared": d.Shared}
		_, err := w.client.Post(ctx, w.client.ServiceURL(scopesPath), map[string]any{"address_scope": body}, &created,
			&gophercloud.RequestOpts{OkCodes: []int{http.StatusCreated}})
		if err != nil {
			if refused(err) {
				return fmt.Errorf("create address scope: %w", err)
			}
			return undoLost(ctx, w.client, w.logger, "address scope", scopesPath, name, scopeFields, func(s wireScope) bool {
				return s.Name == name && s.IPVersion == d.IPVersion && !slices.Contains(slices.Collect(maps.Values(scopes)), s.ID)
			}, err)
		}
		scopes[d.Key().Name] = created.Scope.ID
		w.logger.Info("created address scope", "scope", name, "id", created.Scope.ID)
		return nil
	}
	// An update or an adopt: the name carries the marker.
	id := c.Current.Meta().ID
	_, err := w.client.Put(ctx, w.client.ServiceURL(scopesPath, id), map[string]any{"address_scope": map[string]any{"name": name, "shared": d.Shared}}, nil,
		&gophercloud.RequestOpts{OkCodes: []int{http.StatusOK}})
	if err != nil {
		return writeError("update address scope "+id, err)
	}
	w.logger.Info("updated address scope", "scope", name, "id", id, "action", c.Action.String())
	return nil
}

func (w *PoolWriter) writePool(ctx context.Context, c plan.Change, scopes map[string]string) error {
	if c.Action == plan.Delete {
		cur := c.Current.(*resource.SubnetPool)
		_, err := w.client.Delete(ctx, w.client.ServiceURL(poolsPath, cur.M.ID),
			&gophercloud.RequestOpts{OkCodes: []int{http.StatusNoContent}, MoreHeaders: ifMatch(cur.M)})
		if gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			w.logger.Info("subnet pool already deleted", "pool", cur.Name, "id", cur.M.ID)
			return nil
		}
		if err != nil {
			return writeError("delete subnet pool "+cur.M.ID, err)
		}
		w.logger.Info("deleted subnet pool", "pool", cur.Name, "id", cur.M.ID)
		return nil
	}
	d, ok := c.Desired.(*resource.SubnetPool)
	if !ok {
		return fmt.Errorf("desired object is %T, want a subnet pool", c.Desired)
	}
	if d.Site != "" && d.Site != w.cfg.Site {
		return fmt.Errorf("pool is for site %q, this Neutron is site %q", d.Site, w.cfg.Site)
	}
	if err := checkOwner(d.M.Owner); err != nil {
		return err
	}
	scope, ok := scopes[d.Scope().Name]
	if !ok {
		return fmt.Errorf("address scope %s is not in Neutron", d.Scope().Name)
	}
	body := map[string]any{"name": d.Name, "prefixes": prefixStrings(d), "address_scope_id": scope, "description": d.Description}
	for k, v := range map[string]int{"default_prefixlen": d.DefaultPrefixLen, "min_prefixlen": d.MinPrefixLen, "max_prefixlen": d.MaxPrefixLen} {
		if v > 0 {
			body[k] = v
		}
	}
	if c.Action == plan.Create {
		body["shared"] = d.Shared
		var created struct {
			Pool wirePool `json:"subnetpool"`
		}
		_, err := w.client.Post(ctx, w.client.ServiceURL(poolsPath), map[string]any{"subnetpool": body}, &created,
			&gophercloud.RequestOpts{OkCodes: []int{http.StatusCreated}})
		if err != nil {
			if refused(err) {
				return fmt.Errorf("create subnet pool: %w", err)
			}
			return undoLost(ctx, w.client, w.logger, "subnet pool", poolsPath, d.Name, poolFields, func(p wirePool) bool {
				return p.Name == d.Name && len(p.Tags) == 0 && p.AddressScopeID == scope
			}, err)
		}
		if err := w.marker.markNew(ctx, w.client, poolsPath, "subnet pool", created.Pool.ID, d.M.Owner); err != nil {
			return err
		}
		w.logger.Info("created subnet pool", "pool", d.Name, "id", created.Pool.ID)
		return nil
	}
	cur := c.Current.(*resource.SubnetPool)
	_, err := w.client.Put(ctx, w.client.ServiceURL(poolsPath, cur.M.ID), map[string]any{"subnetpool": body}, nil,
		&gophercloud.RequestOpts{OkCodes: []int{http.StatusOK}, MoreHeaders: ifMatch(cur.M)})
	if err != nil {
		return writeError("update subnet pool "+cur.M.ID, err)
	}
	if c.Action == plan.Adopt {
		if err := w.marker.markAdopted(ctx, w.client, poolsPath, "subnet pool", cur.M.ID, d.M.Owner); err != nil {
			return err
		}
	}
	w.logger.Info("updated subnet pool", "pool", d.Name, "id", cur.M.ID, "action", c.Action.String())
	return nil
}

func prefixStrings(p *resource.SubnetPool) []string {
	out := make([]string, len(p.Prefixes))
	for i, q := range p.Prefixes {
		out[i] = q.String()
	}
	return out
}
