package netbox

import (
	"context"
	"maps"
	"slices"
	"strconv"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/ownership"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sot"
)

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
	for typ := range contentTypes(sot.Kinds()) {
		types = append(types, typ)
	}
	slices.Sort(types)
	return types
}

// Settle takes out of ch the changes of lease tags, and of the lookups
// that still exist under the name the whole read has for them: objects name them by name alone, so however
// else they changed (a tag's description, rewritten by every renewal of
// the agent's lease), every object reads as before. Of these only tags
// say where they may be used (object types), and the objects a follower
// serves (a site's) name no tag but the marker, which the write's
// preflight checks as it is then. Any other change of a lookup is left
// for the view to refuse.
func (r *reading) Settle(_ context.Context, ch changelog.Changes) error {
	// Lease tags are locks no object carries; every acquiring, renewal
	// and release of a lease changes one.
	ch.DropNamed("extras.tag", ownership.LeaseTagPrefix)
	for typ, kind := range r.c.lookupTypes() {
		if kind == "" {
			continue
		}
		for id, deleted := range ch.Objects[typ] {
			n, err := strconv.Atoi(id)
			if err != nil {
				continue
			}
			if known, ok := r.m.l.refs[kind].byID[n]; ok && !deleted && known.Name == ch.Names[typ][id] {
				ch.Drop(typ, id)
			}
		}
	}
	return nil
}
