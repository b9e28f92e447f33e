package nautobot

import (
	"context"
	"fmt"

	"github.com/ipsync/ipsync/internal/resource"
)

// Names returns the names of the objects Nautobot owns that ipsync
// objects refer to: locations, statuses, roles and tenants, for checking
// a plan's references before anything is written. Statuses and roles
// count only if they may be used on a kind ipsync writes.
func (c *Client) Names(ctx context.Context) (map[resource.Kind]map[string]bool, error) {
	l, err := c.fetchLookups(ctx, &tally{})
	if err != nil {
		return nil, fmt.Errorf("read nautobot names: %w", err)
	}
	out := map[resource.Kind]map[string]bool{}
	for _, k := range refKinds() {
		m := map[string]bool{}
		for _, n := range l.refs[k.kind] {
			if (k.kind == resource.RefStatus || k.kind == resource.RefRole) && !applicable(n) {
				continue
			}
			m[n.Name] = true
		}
		out[k.kind] = m
	}
	return out, nil
}
