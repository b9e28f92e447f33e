package emulator

import (
	"net/netip"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// table holds the records of one kind.
type table struct {
	def   *kindDef
	byID  map[string]*record
	byKey map[string]*record // the unique field's value (keyOf), when the kind has one
	// order is byID in the model's ordering. It is rebuilt lazily after
	// writes, so a paged read of n objects sorts once, not once per page.
	order []*record
	dirty bool
}

// vlanKey identifies a VLAN in its group, by vid or by name.
type vlanKey struct {
	group string
	vid   int
	name  string
}

// kids are the prefixes and IP addresses whose parent is one prefix (or
// which have no parent, in one namespace).
type kids struct {
	prefixes map[*record]struct{}
	ips      map[*record]struct{}
}

// store is the server's state. Every write runs between begin and commit;
// rollback undoes it, which is how bulk writes are all-or-none.
type store struct {
	tables map[string]*table // by object type

	prefixes map[string]map[netip.Prefix]*record // namespace id -> network
	ips      map[string]map[netip.Addr]*record   // namespace id -> host
	vlans    map[vlanKey]*record                 // (group, vid) and (group, name)
	kids     map[string]*kids                    // parent prefix id, or rootKey(namespace)
	// refs counts the protecting references to each record (status, role,
	// tenant, location, namespace, VLAN group, VLAN), so deleting a record
	// still in use fails as Django's on_delete=PROTECT makes it fail.
	refs        map[string]int
	assignments map[string][]*record // prefix id -> its location assignments

	undo  []func()
	req   *changeRequest // the request the open transaction runs for, nil outside one
	gen   uint64         // bumped by every commit; list caches are valid for one gen
	cache map[string][]*record
	cfs   map[string][]*record // content type -> custom fields, per gen

	now  func() time.Time
	last time.Time

	changes     []*change            // the change log, oldest first
	changeCache map[string][]*change // list queries of the log, per gen
	types       []contentType        // the content types the server knows
	userID      string               // the one user every token belongs to

	// version is the Nautobot version the server claims, for what
	// differs between release lines.
	version apiVersion
}

// knownType reports whether ct names a model content types may refer to.
func (s *store) knownType(ct string) bool {
	switch ct {
	case ctPrefixLoc, ctCustomField:
		return false
	case "dcim.device", "dcim.interface", "virtualization.virtualmachine", "circuits.circuit":
		return true
	}
	return s.tables[ct] != nil
}

func newStore(now func() time.Time, version apiVersion, defs []*kindDef) *store {
	s := &store{
		version:     version,
		tables:      map[string]*table{},
		prefixes:    map[string]map[netip.Prefix]*record{},
		ips:         map[string]map[netip.Addr]*record{},
		vlans:       map[vlanKey]*record{},
		kids:        map[string]*kids{},
		refs:        map[string]int{},
		assignments: map[string][]*record{},
		cache:       map[string][]*record{},
		changeCache: map[string][]*change{},
		now:         now,
	}
	for _, d := range defs {
		s.tables[d.ct] = &table{def: d, byID: map[string]*record{}, byKey: map[string]*record{}}
	}
	s.types = catalog(version.atLeast(3, 0), s.tables[ctASN] != nil)
	s.userID = uuid.NewString()
	return s
}

func rootKey(namespace string) string { return "root:" + namespace }

// stamp is the time of a write, strictly later than the one before, so
// every write changes last_updated even within one clock tick.
func (s *store) stamp() time.Time {
	t := s.now().UTC().Truncate(time.Microsecond)
	if !t.After(s.last) {
		t = s.last.Add(time.Microsecond)
	}
	s.last = t
	return t
}

func (s *store) get(ct, id string) *record {
	if t := s.tables[ct]; t != nil {
		return t.byID[id]
	}
	return nil
}

// begin opens a transaction for req, whose writes are logged in the
// change log; nil logs none.
func (s *store) begin(req *changeRequest) {
	s.undo = s.undo[:0]
	s.req = req
}

func (s *store) commit() {
	s.undo = s.undo[:0]
	s.req = nil
	s.changed()
}

func (s *store) rollback() {
	for i := len(s.undo) - 1; i >= 0; i-- {
		s.undo[i]()
	}
	s.undo = s.undo[:0]
	s.req = nil
	s.changed()
}

func (s *store) changed() {
	s.gen++
	clear(s.cache)
	clear(s.changeCache)
	s.cfs = nil
}

// insert stores a new record.
func (s *store) insert(r *record) {
	s.index(r)
	s.undo = append(s.undo, func() { s.unindex(r) })
}

// replace gives r the content of next (same id), keeping the pointer so
// that other indexes holding r stay valid.
func (s *store) replace(r, next *record) {
	prev := r.clone()
	s.unindex(r)
	*r = *next
	s.index(r)
	s.undo = append(s.undo, func() {
		s.unindex(r)
		*r = *prev
		s.index(r)
	})
}

// remove deletes r.
func (s *store) remove(r *record) {
	s.unindex(r)
	s.undo = append(s.undo, func() { s.index(r) })
}

// setParent moves a prefix or IP address under another parent without
// touching last_updated: Nautobot reparents with QuerySet.update(), which
// does not bump it.
func (s *store) setParent(r *record, parent string) {
	old := r.parent
	s.unkid(r)
	r.parent = parent
	s.kid(r)
	s.undo = append(s.undo, func() {
		s.unkid(r)
		r.parent = old
		s.kid(r)
	})
}

// keyOf is the value of the kind's unique field.
func keyOf(r *record) string {
	switch r.ct {
	case ctASN:
		return strconv.FormatInt(r.asn, 10)
	case ctLocation:
		return locationKey(r.parent, r.name)
	}
	return r.name
}

// locationKey is what makes a location unique: its name under its parent
// (parent "" for a top-level location).
func locationKey(parent, name string) string { return parent + "/" + name }

// byName is the object of type ct a name identifies: for locations, the
// top-level one, as a location's composite key without a parent names it.
func (s *store) byName(ct, name string) *record {
	if ct == ctLocation {
		name = locationKey("", name)
	}
	return s.tables[ct].byKey[name]
}

func (s *store) index(r *record) {
	t := s.tables[r.ct]
	t.byID[r.id] = r
	t.dirty = true
	if t.def.uniqueField != "" || r.ct == ctLocation {
		t.byKey[keyOf(r)] = r
	}
	for _, id := range protecting(r) {
		s.refs[id]++
	}
	switch r.ct {
	case ctVLAN:
		if r.group != "" {
			s.vlans[vlanKey{group: r.group, vid: r.vid}] = r
			s.vlans[vlanKey{group: r.group, name: r.name}] = r
		}
	case ctPrefix:
		m := s.prefixes[r.namespace]
		if m == nil {
			m = map[netip.Prefix]*record{}
			s.prefixes[r.namespace] = m
		}
		m[r.net] = r
		s.kid(r)
	case ctIPAddress:
		m := s.ips[r.namespace]
		if m == nil {
			m = map[netip.Addr]*record{}
			s.ips[r.namespace] = m
		}
		m[r.net.Addr()] = r
		s.kid(r)
	case ctPrefixLoc:
		s.assignments[r.prefix] = append(s.assignments[r.prefix], r)
		if p := s.get(ctPrefix, r.prefix); p != nil {
			p.locations = append(p.locations, r.location)
		}
	}
}

func (s *store) unindex(r *record) {
	t := s.tables[r.ct]
	delete(t.byID, r.id)
	t.dirty = true
	if t.def.uniqueField != "" || r.ct == ctLocation {
		if t.byKey[keyOf(r)] == r {
			delete(t.byKey, keyOf(r))
		}
	}
	for _, id := range protecting(r) {
		if s.refs[id]--; s.refs[id] <= 0 {
			delete(s.refs, id)
		}
	}
	switch r.ct {
	case ctVLAN:
		if r.group != "" {
			delete(s.vlans, vlanKey{group: r.group, vid: r.vid})
			delete(s.vlans, vlanKey{group: r.group, name: r.name})
		}
	case ctPrefix:
		delete(s.prefixes[r.namespace], r.net)
		s.unkid(r)
	case ctIPAddress:
		delete(s.ips[r.namespace], r.net.Addr())
		s.unkid(r)
	case ctPrefixLoc:
		s.assignments[r.prefix] = slices.DeleteFunc(s.assignments[r.prefix], func(x *record) bool { return x == r })
		if p := s.get(ctPrefix, r.prefix); p != nil {
			if i := slices.Index(p.locations, r.location); i >= 0 {
				p.locations = slices.Delete(p.locations, i, i+1)
			}
		}
	}
}

func (s *store) kidsOf(key string) *kids {
	k := s.kids[key]
	if k == nil {
		k = &kids{prefixes: map[*record]struct{}{}, ips: map[*record]struct{}{}}
		s.kids[key] = k
	}
	return k
}

func (s *store) parentKey(r *record) string {
	if r.parent != "" {
		return r.parent
	}
	return rootKey(r.namespace)
}

func (s *store) kid(r *record) {
	k := s.kidsOf(s.parentKey(r))
	if r.ct == ctPrefix {
		k.prefixes[r] = struct{}{}
	} else {
		k.ips[r] = struct{}{}
	}
}

func (s *store) unkid(r *record) {
	k := s.kids[s.parentKey(r)]
	if k == nil {
		return
	}
	delete(k.prefixes, r)
	delete(k.ips, r)
}

// protecting lists the ids r refers to through foreign keys declared
// on_delete=PROTECT in Nautobot's models.
func protecting(r *record) []string {
	if r.ct == ctPrefixLoc {
		return nil // assignments cascade with their prefix and location
	}
	var ids []string
	for _, id := range []string{r.status, r.role, r.tenant, r.location, r.locationType, r.group, r.vlan} {
		if id != "" {
			ids = append(ids, id)
		}
	}
	if r.ct == ctPrefix && r.namespace != "" {
		ids = append(ids, r.namespace)
	}
	if (r.ct == ctLocation || r.ct == ctLocationType) && r.parent != "" {
		ids = append(ids, r.parent)
	}
	return ids
}

// sorted returns the records of t in the model's ordering.
func (s *store) sorted(t *table) []*record {
	if t.dirty {
		t.order = t.order[:0]
		for _, r := range t.byID {
			t.order = append(t.order, r)
		}
		slices.SortFunc(t.order, func(a, b *record) int {
			switch {
			case t.def.less(s, a, b):
				return -1
			case t.def.less(s, b, a):
				return 1
			}
			return cmpString(a.id, b.id)
		})
		t.dirty = false
	}
	return t.order
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// customFields lists the custom fields defined for content type ct.
func (s *store) customFields(ct string) []*record {
	if s.cfs == nil {
		s.cfs = map[string][]*record{}
		for _, cf := range s.sorted(s.tables[ctCustomField]) {
			for _, c := range cf.contentTypes {
				s.cfs[c] = append(s.cfs[c], cf)
			}
		}
	}
	return s.cfs[ct]
}
