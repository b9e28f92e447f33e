package nautobot

import (
	"encoding/json"
	"fmt"

	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// savedNames are the names a follower's view was read with, as a resumed
// agent gets them back: the lookups as read, and the names of the
// namespaces, groups, VLANs and parent prefixes the objects refer to by id.
type savedNames struct {
	Lookups    map[resource.Kind][]named `json:"lookups"`
	Namespaces map[string]string         `json:"namespaces"`
	Groups     map[string]string         `json:"groups"`
	VLANs      map[string]string         `json:"vlans"`
	PrefixNS   map[string]string         `json:"prefix_namespaces"`
}

// Save is what r reads with, as Restore takes it back.
func (r *reading) Save() ([]byte, error) {
	m := r.m
	return json.Marshal(savedNames{Lookups: m.l.raw, Namespaces: m.namespaces, Groups: m.groups, VLANs: m.vlans, PrefixNS: m.prefixNS})
}

// Restore makes the reading Names saved the target's last whole read
// again, as ReadWhole would have, and learns the ids of the objects of
// objs (the view) that writes name.
func (c *Client) Restore(sc scope.Scope, kinds []resource.Kind, b []byte, objs []resource.Object) (*reading, error) {
	var s savedNames
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("saved names: %w", err)
	}
	r := c.reading(sc, kinds, newLookups(s.Lookups), &s)
	for _, o := range objs {
		switch o.Key().Kind {
		case resource.KindNamespace, resource.KindVLANGroup, resource.KindVLAN: // what a read learns
			r.k.own.Learn(o.Key(), o.Meta().ID)
		}
	}
	return r, nil
}
