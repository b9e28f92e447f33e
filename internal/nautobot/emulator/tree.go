package emulator

import (
	"net/netip"

	"github.com/google/uuid"
)

// closest is the longest prefix in namespace ns that contains p, by map
// lookups per prefix length rather than a scan, so parenting stays cheap
// with many prefixes. includeSelf admits a prefix of p's own length, which
// is how IP addresses find their parent (a /32 prefix parents its host).
func (s *store) closest(ns string, p netip.Prefix, includeSelf bool) *record {
	m := s.prefixes[ns]
	if len(m) == 0 {
		return nil
	}
	bits := p.Bits()
	if !includeSelf {
		bits--
	}
	for ; bits >= 0; bits-- {
		q, _ := p.Addr().Prefix(bits)
		if r := m[q]; r != nil {
			return r
		}
	}
	return nil
}

// adoptChildren re-parents, after p was created, the prefixes and IP
// addresses p now is the closest parent of. They can only be among the
// children of p's own parent (or the namespace's roots): anything that
// p contains was, before p, parented by p's parent or by something
// inside p.
func (s *store) adoptChildren(p *record) {
	k := s.kids[s.parentKey(p)]
	if k == nil {
		return
	}
	var move []*record
	for c := range k.prefixes {
		if c != p && c.net.Bits() > p.net.Bits() && p.net.Contains(c.net.Addr()) {
			move = append(move, c)
		}
	}
	for ip := range k.ips {
		if p.net.Contains(ip.net.Addr()) {
			move = append(move, ip)
		}
	}
	for _, c := range move {
		s.setParent(c, p.id)
	}
}

// releaseChildren hands p's children to p's parent before p is deleted.
// It reports the IP addresses that would be left without a parent, which
// makes Nautobot refuse the delete.
func (s *store) releaseChildren(p *record) []*record {
	k := s.kids[p.id]
	if k == nil {
		return nil
	}
	if p.parent == "" && len(k.ips) > 0 {
		orphans := make([]*record, 0, len(k.ips))
		for ip := range k.ips {
			orphans = append(orphans, ip)
		}
		return orphans
	}
	var move []*record
	for c := range k.prefixes {
		move = append(move, c)
	}
	for ip := range k.ips {
		move = append(move, ip)
	}
	for _, c := range move {
		s.setParent(c, p.parent)
	}
	return nil
}

// globalNamespace returns the Global namespace, creating it when missing
// as Nautobot's get_default_namespace does.
func (s *store) globalNamespace() *record {
	if r := s.tables[ctNamespace].byKey[globalNamespace]; r != nil {
		return r
	}
	now := s.stamp()
	r := &record{ct: ctNamespace, id: uuid.NewString(), created: now, updated: now, name: globalNamespace,
		description: "Default Global namespace. Created by Nautobot.", cf: map[string]any{}}
	s.insert(r)
	return r
}
