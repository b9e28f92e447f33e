package netbox

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sot"
)

// savedNames are the names a follower's view was read with, as a resumed
// agent gets them back: the lookups and choices as read, and the names of
// the VRFs, groups and VLANs objects refer to by id.
type savedNames struct {
	Refs     map[resource.Kind][]named `json:"refs"`
	Statuses map[string][]choice       `json:"statuses"`
	IPRoles  []choice                  `json:"ip_roles"`
	VRFs     map[int]string            `json:"vrfs"`
	Groups   map[int]string            `json:"groups"`
	VLANs    map[int]string            `json:"vlans"`
}

// Save is what r reads with, as Restore takes it back.
func (r *reading) Save() ([]byte, error) {
	m := r.m
	s := savedNames{Refs: map[resource.Kind][]named{}, Statuses: m.l.statuses, IPRoles: m.l.ipRoles, VRFs: m.vrfs, Groups: m.groups, VLANs: m.vlans}
	for k, n := range m.l.refs {
		s.Refs[k] = slices.SortedFunc(maps.Values(n.byID), func(a, b named) int { return a.ID - b.ID })
	}
	return json.Marshal(s)
}

// Restore makes the reading Names saved the target's last whole read
// again, as ReadWhole would have, and learns the ids of the objects of
// objs (the view) that writes name.
func (c *Client) Restore(sc scope.Scope, kinds []resource.Kind, b []byte, objs []resource.Object) (*reading, error) {
	var s savedNames
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("saved names: %w", err)
	}
	l := &lookups{refs: map[resource.Kind]names{}, statuses: s.Statuses, ipRoles: s.IPRoles}
	for k, objs := range s.Refs {
		l.refs[k] = newNames(objs)
	}
	m := c.newMapper(l)
	r := &reading{c: c, Of: sot.NewOf(sc, kinds), m: m, k: newKnown(l)}
	for _, into := range []struct{ to, from map[int]string }{{m.vrfs, s.VRFs}, {m.groups, s.Groups}, {m.vlans, s.VLANs}} {
		maps.Copy(into.to, into.from)
	}
	for _, o := range objs {
		switch o.Key().Kind {
		case resource.KindNamespace, resource.KindVLANGroup, resource.KindVLAN: // what a read learns
			if id, err := strconv.Atoi(o.Meta().ID); err == nil {
				r.k.own.Learn(o.Key(), id)
			}
		}
	}
	return r, nil
}
