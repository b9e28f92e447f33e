package nautobot

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/resource"
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

var _ changelog.Adapter = followed{}

// Names saves what rr reads with.
func (rr rereader) Names() ([]byte, error) {
	m := rr.last.m
	return json.Marshal(savedNames{Lookups: m.l.raw, Namespaces: m.namespaces, Groups: m.groups, VLANs: m.vlans, PrefixNS: m.prefixNS})
}

// Restore makes the reading Names saved the target's last whole read
// again, as ReadWhole would have, and learns the ids of the objects of
// objs (the view) that writes name.
func (f followed) Restore(_ context.Context, b []byte, objs []resource.Object) (changelog.Rereader, error) {
	var s savedNames
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("saved names: %w", err)
	}
	kinds, err := kindsOf(f.t.scope)
	if err != nil {
		return nil, err
	}
	c := f.t.c
	l := newLookups(s.Lookups)
	c.learnRefs(l)
	r := &reading{c: c, t: &httpapi.Tally{}, scope: f.t.scope, want: kinds,
		m: &mapper{l: l, owner: c.ownerMarker(), vniField: c.cfg.VNIField, namespaces: s.Namespaces, groups: s.Groups, vlans: s.VLANs, prefixNS: s.PrefixNS}}
	for id, tag := range l.refs[refTag] {
		if tag.Name == c.cfg.Tag {
			r.m.managedTag = id
		}
	}
	for _, o := range objs {
		switch o.Key().Kind {
		case resource.KindNamespace, resource.KindVLANGroup, resource.KindVLAN: // what a read learns
			c.learn(o.Key(), o.Meta().ID)
		}
	}
	f.t.mu.Lock()
	f.t.listed, f.t.whole = l, r
	f.t.mu.Unlock()
	return rereader{r}, nil
}
