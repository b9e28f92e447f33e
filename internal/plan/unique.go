package plan

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/ipsync/ipsync/internal/resource"
)

// uniques makes the plan hold to the target's unique keys besides the
// natural key (a VLAN's name in its group), once every object has been
// matched by natural key. It
//
//   - refuses a desired object whose unique key another desired object
//     takes, or a current object keeps that this plan does not change
//     (another owner's, an unmarked one, or one this mode leaves alone):
//     the target would refuse it, and the objects after it, halfway
//     through the apply;
//   - turns the delete of an owned object and the create of a desired one
//     with the same unique key into an update of the object, where the
//     target can change its natural key in place (a VLAN renumbered under
//     its name keeps its id, and the prefixes using it follow it);
//   - gives an object that gives up a unique key another write takes an
//     interim value (two VLANs swapping names, a name passed from a VLAN
//     being deleted to another one), which the target writes first.
//
// It returns the deletes left, and the desired objects of the conflicts
// it made. keyed are the positions of the objects that have unique keys.
func (p *Plan) uniques(desired []resource.Object, current []resource.Object, del []Change, keyed keyed) ([]Change, map[resource.Object]bool) {
	u := &uniquer{p: p, del: del, desired: desired, current: current,
		holder:  map[resource.UniqueKey]resource.Object{},
		change:  map[resource.Object]int{},
		deleted: map[resource.Object]int{},
		refused: map[resource.Object]bool{},
	}
	if !u.index(keyed) {
		return del, nil
	}
	u.refuse()
	renumbered := u.makeRoom()
	p.followRenumbers(renumbered)
	kept := del[:0]
	for i, c := range u.del {
		if !u.dropped[i] {
			kept = append(kept, c)
		}
	}
	return kept, u.refused
}

type uniquer struct {
	p                *Plan
	del              []Change
	desired, current []resource.Object
	// writers are the indexes in p.Changes of creates, updates and adopts
	// of objects with unique keys, in the order of desired.
	writers []int
	// holder is the current object holding each key a writer takes;
	// change and deleted are those objects' changes in p.Changes and del.
	holder  map[resource.UniqueKey]resource.Object
	change  map[resource.Object]int
	deleted map[resource.Object]int
	names   map[string]map[string]bool // VLAN names in use per group, made by the first interim
	refused map[resource.Object]bool
	dropped map[int]bool // deletes turned into renumbers
}

// index records the writers and what holds the keys they take; it
// reports false when no object has unique keys, so that plans of
// prefixes and addresses pay nothing more. Of the objects with unique
// keys (a site's VLANs) it looks at the changes alone and the holders
// of what they take, not at every VLAN of the site.
func (u *uniquer) index(keyed keyed) bool {
	if len(keyed.current) == 0 && len(keyed.desired) == 0 {
		return false
	}
	// A desired object declared twice has a second change, a conflict;
	// the first is then no writer either.
	named := map[resource.Object]int{}
	for _, c := range u.p.Changes {
		if c.Desired != nil && len(c.Desired.UniqueKeys()) > 0 {
			named[c.Desired]++
		}
	}
	taken := map[resource.UniqueKey]bool{}
	for i, c := range u.p.Changes {
		if c.Desired == nil || named[c.Desired] != 1 || !c.Action.Writes() {
			continue
		}
		u.writers = append(u.writers, i)
		for _, k := range takes(c) {
			taken[k] = true
		}
	}
	holders := map[resource.Object]bool{}
	var keys []resource.UniqueKey
	for _, i := range keyed.current {
		c := u.current[i]
		keys = resource.AppendUniqueKeys(keys[:0], c)
		for _, k := range keys {
			if _, ok := u.holder[k]; !ok && taken[k] {
				u.holder[k] = c
				holders[c] = true
			}
		}
	}
	for i, c := range u.p.Changes {
		if c.Current != nil && holders[c.Current] {
			u.change[c.Current] = i
		}
	}
	for i, c := range u.del {
		if holders[c.Current] {
			u.deleted[c.Current] = i
		}
	}
	return true
}

// takes lists the unique keys the change's desired object takes that its
// current object does not hold already.
func takes(c Change) []resource.UniqueKey {
	var out []resource.UniqueKey
	for _, k := range c.Desired.UniqueKeys() {
		if c.Current == nil || !slices.Contains(c.Current.UniqueKeys(), k) {
			out = append(out, k)
		}
	}
	return out
}

// refuse turns into conflicts the writes that cannot take their keys.
// A refused update leaves its object where it is, which may block
// another write: it repeats until nothing changes.
func (u *uniquer) refuse() {
	// Desired against desired: an object keeping a key wins over one
	// taking it, then the first declared.
	claim := map[resource.UniqueKey]int{}
	for _, keeping := range []bool{true, false} {
		for _, i := range u.writers {
			c := u.p.Changes[i]
			for _, k := range c.Desired.UniqueKeys() {
				if slices.Contains(takes(c), k) == keeping {
					continue
				}
				if j, ok := claim[k]; ok {
					other := describe(u.p.Changes[j].Desired)
					u.conflict(i, k, other, fmt.Sprintf("%s is also desired for %s", k, other))
					continue
				}
				claim[k] = i
			}
		}
	}
	for again := true; again; {
		again = false
		for _, i := range u.writers {
			c := u.p.Changes[i]
			if c.Action == Conflict {
				continue
			}
			for _, k := range takes(c) {
				h, ok := u.holder[k]
				if !ok || !u.stays(h) {
					continue
				}
				holder := fmt.Sprintf("%s (%s)", h.Key(), ownerOf(h))
				u.conflict(i, k, holder, fmt.Sprintf("%s is taken by %s, which this plan does not remove or rename", k, holder))
				again = true
				break
			}
		}
	}
}

// stays reports whether the current object h keeps its unique keys after
// the plan: nothing changes it, or its change is refused. Deleted objects
// and updated ones give theirs up (a desired object keeping one has
// claimed it in refuse already).
func (u *uniquer) stays(h resource.Object) bool {
	if _, ok := u.deleted[h]; ok {
		return false
	}
	i, ok := u.change[h]
	return !ok || !u.p.Changes[i].Action.Writes()
}

// conflict refuses change i, whose key k the object other keeps or takes.
func (u *uniquer) conflict(i int, k resource.UniqueKey, other, reason string) {
	c := &u.p.Changes[i]
	if c.Action == Conflict {
		return
	}
	u.p.Summary.add(c.Key.Kind, c.Action, -1)
	u.p.Summary.count(c.Key.Kind, Conflict)
	c.Action, c.Reason = Conflict, reason
	u.refused[c.Desired] = true
	u.p.Refusals = append(u.p.Refusals, fmt.Sprintf("%s and %s both have %s %q in %s: the target refuses %s; change one of them",
		describe(c.Desired), other, k.Field, k.Value, k.In, k.Rule()))
}

// makeRoom frees the keys the remaining writes take: by renumbering the
// deleted object holding one where the target allows it, else by giving
// the holder an interim value. It returns the natural keys renumbered,
// old to new.
func (u *uniquer) makeRoom() map[resource.Key]resource.Key {
	u.dropped = map[int]bool{}
	renumbered := map[resource.Key]resource.Key{}
	for _, i := range u.writers {
		c := &u.p.Changes[i]
		if c.Action == Conflict {
			continue
		}
		for _, k := range takes(*c) {
			h, ok := u.holder[k]
			if !ok {
				continue
			}
			if j, ok := u.deleted[h]; ok {
				if vid, ok := resource.Renumbering(c.Desired, h); ok && c.Action == Create && !u.dropped[j] {
					u.renumber(c, h, vid)
					u.dropped[j] = true
					renumbered[h.Key()] = c.Key
					continue
				}
				u.interim(&u.del[j], c.Key)
				continue
			}
			if j, ok := u.change[h]; ok {
				u.interim(&u.p.Changes[j], c.Key)
			}
		}
	}
	return renumbered
}

// renumber turns the create c into an update of the deleted object h.
func (u *uniquer) renumber(c *Change, h resource.Object, key resource.FieldDiff) {
	u.p.Summary.add(c.Key.Kind, Create, -1) // its delete is not counted yet
	u.p.Summary.count(c.Key.Kind, Update)
	c.Action, c.Current = Update, h
	c.Fields = append([]resource.FieldDiff{key}, c.Desired.Diff(h)...)
	c.Reason = fmt.Sprintf("renumbered in place: %s keeps its id, and what uses it follows", h.Key())
}

// interim gives the object of change c an interim name for the time of
// the apply, so that the write of key can take its current one.
func (u *uniquer) interim(c *Change, key resource.Key) {
	if len(c.Interim) > 0 {
		return
	}
	v, ok := c.Current.(*resource.VLAN)
	if !ok {
		return
	}
	if u.names == nil {
		u.names = map[string]map[string]bool{}
		for _, objs := range [][]resource.Object{u.current, u.desired} {
			for _, o := range objs {
				if x, ok := o.(*resource.VLAN); ok {
					if u.names[x.Group] == nil {
						u.names[x.Group] = map[string]bool{}
					}
					u.names[x.Group][x.Name] = true
				}
			}
		}
	}
	name := "ipsync-renaming-" + strconv.Itoa(int(v.VID))
	for n := 2; u.names[v.Group][name]; n++ {
		name = "ipsync-renaming-" + strconv.Itoa(int(v.VID)) + "-" + strconv.Itoa(n)
	}
	u.names[v.Group][name] = true
	c.Interim = []resource.FieldDiff{{Field: "name", Old: v.Name, New: name}}
	why := fmt.Sprintf("renamed to %q first: %s takes its name", name, key)
	if c.Reason != "" {
		why = c.Reason + "; " + why
	}
	c.Reason = why
}

// followRenumbers drops, from the updates of prefixes, a change of VLAN
// that only follows a VLAN renumbered in place: the prefix keeps the
// VLAN it has.
func (p *Plan) followRenumbers(renumbered map[resource.Key]resource.Key) {
	if len(renumbered) == 0 {
		return
	}
	kept := p.Changes[:0]
	for _, c := range p.Changes {
		if c.Action == Update && c.Key.Kind == resource.KindPrefix {
			c.Fields = slices.DeleteFunc(slices.Clone(c.Fields), func(f resource.FieldDiff) bool {
				return f.Field == "vlan" && renumbered[resource.Key{Kind: resource.KindVLAN, Name: f.Old}] == resource.Key{Kind: resource.KindVLAN, Name: f.New}
			})
			if len(c.Fields) == 0 {
				p.Summary.add(c.Key.Kind, Update, -1)
				p.noops[c.Key.Kind.Rank()]++
				continue
			}
		}
		kept = append(kept, c)
	}
	p.Changes = kept
}

// describe names an object and, for a desired one, where it is declared.
func describe(o resource.Object) string {
	if src := o.Meta().Source.String(); src != "" {
		return o.Key().String() + " (" + src + ")"
	}
	return o.Key().String()
}

func ownerOf(o resource.Object) string {
	if o := o.Meta().Owner; o != "" {
		return "owned by " + string(o)
	}
	return "without an ipsync marker"
}
