package plan

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"slices"
	"testing"

	"github.com/ipsync/ipsync/internal/resource"
)

// planOneByOne is the matching Make does on all cores, written as one
// pass in order with Go maps: the plan Make must give, whatever the
// goroutines, chunks and shards.
func planOneByOne(desired, current []resource.Object, policy Policy) *Plan {
	p := &Plan{Policy: policy, Summary: Summary{}}
	var kd keyed
	first := map[resource.Identity]int{}
	heldTwice := map[resource.Identity]bool{}
	for i, c := range current {
		if len(c.UniqueKeys()) > 0 {
			kd.current = append(kd.current, int32(i))
		}
		id := c.Identity()
		if _, ok := first[id]; ok {
			heldTwice[id] = true
			continue
		}
		first[id] = i
		if c.Meta().Owner == policy.Owner {
			p.Owned++
		}
	}
	matched := make([]bool, len(current))
	created := map[resource.Identity]bool{}
	for j, d := range desired {
		if len(d.UniqueKeys()) > 0 {
			kd.desired = append(kd.desired, int32(j))
		}
		id := d.Identity()
		i, ok := first[id]
		switch {
		case ok && matched[i], !ok && created[id]:
			p.add(declaredTwice(d, policy))
		case !ok:
			created[id] = true
			p.add(Change{Action: Create, Key: d.Key(), Desired: d, Fields: d.Diff(empty(d))})
		case heldTwice[id]:
			matched[i] = true
			p.add(Change{Action: Conflict, Key: d.Key(), Desired: d, Current: current[i], Reason: "the target holds more than one object with this key; remove the duplicate by hand"})
		default:
			matched[i] = true
			p.compare(d, current[i])
		}
	}
	var del []Change
	for i, c := range current {
		if matched[i] || c.Meta().Owner != policy.Owner {
			continue
		}
		if id := c.Identity(); heldTwice[id] && matched[first[id]] {
			continue
		}
		if policy.Mode != ModeSync {
			p.Summary.count(c.Kind(), Skip)
			continue
		}
		del = append(del, Change{Action: Delete, Key: c.Key(), Current: c, Fields: empty(c).Diff(c)})
	}
	return p.finish(desired, current, del, kd, 1)
}

// TestMakeAsOneByOne plans random small sites, full of repeated keys,
// foreign and unmarked objects and VLAN names in the way, on up to four
// goroutines taking a few objects at a time, and holds each plan to the
// one pass in order.
func TestMakeAsOneByOne(t *testing.T) {
	for seed := range uint64(3000) {
		r := rand.New(rand.NewPCG(seed, 1))
		desired, current := randomSite(r)
		pol := DefaultPolicy(me)
		pol.Mode = []Mode{ModeSync, ModeUpsertOnly, ModeCreateOnly}[r.IntN(3)]
		pol.Adopt = r.IntN(2) == 0
		pol.AllowMassDelete = r.IntN(3) == 0
		tune := tuning{workers: 1 + r.IntN(4), chunk: 1 + r.IntN(5), perShard: 1 + r.IntN(8)}
		got := makeWith(desired, current, pol, tune)
		want := planOneByOne(desired, current, pol)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d, %+v: plan\n%s\nwant\n%s", seed, tune, dump(got), dump(want))
		}
	}
}

func dump(p *Plan) string {
	s := fmt.Sprintf("owned %d, noops %v, summary %v, refusals %q\n", p.Owned, p.noops, p.Summary, p.Refusals)
	for _, c := range p.Changes {
		s += fmt.Sprintf("  %s %s %v %q %v\n", c.Action, c.Key, c.Fields, c.Reason, c.Interim)
	}
	return s
}

// randomSite draws objects from few keys, so that keys repeat on each
// side and VLAN names meet in their groups.
func randomSite(r *rand.Rand) (desired, current []resource.Object) {
	owners := []resource.Owner{me, me, me, other, ""}
	object := func() resource.Object {
		var o resource.Object
		addr := func(last byte) netip.Addr {
			if r.IntN(4) == 0 {
				return netip.AddrFrom16([16]byte{0: 0xfd, 15: last})
			}
			return netip.AddrFrom4([4]byte{10, 0, 0, last})
		}
		switch r.IntN(5) {
		case 0:
			o = &resource.VLAN{Group: []string{"g1", "g2", ""}[r.IntN(3)], VID: uint16(1 + r.IntN(5)), Name: []string{"a", "b", "c"}[r.IntN(3)]}
		case 1:
			bits := []int{24, 28, 30}[r.IntN(3)]
			o = &resource.Prefix{Namespace: []string{"n", "m"}[r.IntN(2)], Prefix: netip.PrefixFrom(addr(byte(4*r.IntN(4))), bits).Masked(),
				VLAN: []string{"", "g1/1", "g1/2"}[r.IntN(3)]}
		case 2:
			o = &resource.IPAddress{Namespace: "n", Address: netip.PrefixFrom(addr(byte(1+r.IntN(6))), 24+r.IntN(2))}
		case 3:
			o = &resource.ASN{ASN: uint32(64_512 + r.IntN(3))}
		default:
			o = &resource.Namespace{Name: []string{"n", "m"}[r.IntN(2)]}
		}
		if r.IntN(3) == 0 {
			switch x := o.(type) {
			case *resource.VLAN:
				x.Description = "changed"
			case *resource.Prefix:
				x.Description = "changed"
			case *resource.IPAddress:
				x.Description = "changed"
			case *resource.Namespace:
				x.Description = "changed"
			case *resource.ASN:
				x.Description = "changed"
			}
		}
		return o
	}
	for range r.IntN(30) {
		d := object()
		d.Meta().Owner = me
		desired = append(desired, d)
		if r.IntN(8) == 0 {
			desired = append(desired, d) // the same object twice
		}
	}
	for range r.IntN(30) {
		c := object()
		if len(desired) > 0 && r.IntN(2) == 0 {
			c = resource.Clone(desired[r.IntN(len(desired))])
		}
		c.Meta().Owner = owners[r.IntN(len(owners))]
		c.Meta().ID = fmt.Sprint("id-", len(current))
		current = append(current, c)
	}
	r.Shuffle(len(desired), func(i, j int) { desired[i], desired[j] = desired[j], desired[i] })
	return desired, current
}

// compareChanges is the order of a plan's changes as a comparison of two
// changes, as it was written before sortChanges read keys out of them:
// the order orderKey must give.
func compareChanges(a, b *Change) int {
	if c := cmp.Compare(phase(a.Action), phase(b.Action)); c != 0 {
		return c
	}
	ra, rb := a.Key.Kind.Rank(), b.Key.Kind.Rank()
	if a.Action == Delete {
		ra, rb = rb, ra
	}
	if c := cmp.Compare(ra, rb); c != 0 {
		return c
	}
	if c := compareObjects(object(a), object(b), a.Action == Delete); c != 0 {
		return c
	}
	return cmp.Compare(a.Key.Name, b.Key.Name)
}

// compareObjects orders two objects of one kind as people read them:
// addresses and numbers by value (10.70.1.46 before 10.70.1.168, VLAN 99
// before 100), and prefixes so that a container is created before the
// prefixes inside it and deleted after them.
func compareObjects(a, b resource.Object, deleting bool) int {
	switch x := a.(type) {
	case *resource.Prefix:
		y, ok := b.(*resource.Prefix)
		if !ok {
			return 0
		}
		if c := cmp.Compare(x.Namespace, y.Namespace); c != 0 {
			return c
		}
		if deleting {
			// By last address, then narrowest first: what a prefix holds
			// ends at or before its own end.
			return cmp.Or(lastAddr(x.Prefix).Compare(lastAddr(y.Prefix)), cmp.Compare(y.Prefix.Bits(), x.Prefix.Bits()))
		}
		return cmp.Or(x.Prefix.Addr().Compare(y.Prefix.Addr()), cmp.Compare(x.Prefix.Bits(), y.Prefix.Bits()))
	case *resource.IPAddress:
		if y, ok := b.(*resource.IPAddress); ok {
			return cmp.Or(cmp.Compare(x.Namespace, y.Namespace), x.Address.Addr().Compare(y.Address.Addr()))
		}
	case *resource.VLAN:
		if y, ok := b.(*resource.VLAN); ok {
			return cmp.Or(cmp.Compare(x.Group, y.Group), cmp.Compare(x.VID, y.VID))
		}
	case *resource.ASN:
		if y, ok := b.(*resource.ASN); ok {
			return cmp.Compare(x.ASN, y.ASN)
		}
	}
	return 0
}

func object(c *Change) resource.Object {
	if c.Desired != nil {
		return c.Desired
	}
	return c.Current
}

// TestSortChangesIsStable: sorting positions, on one core or as two
// halves merged, keeps the order of changes compareChanges holds equal,
// as a stable sort of the changes does.
func TestSortChangesIsStable(t *testing.T) {
	for seed := range uint64(500) {
		r := rand.New(rand.NewPCG(seed, 2))
		desired, current := randomSite(r)
		var cs []Change
		for _, d := range desired {
			cs = append(cs, Change{Action: []Action{Create, Update, Conflict}[r.IntN(3)], Key: d.Key(), Desired: d, Reason: fmt.Sprint(len(cs))})
		}
		for _, c := range current {
			cs = append(cs, Change{Action: Delete, Key: c.Key(), Current: c, Reason: fmt.Sprint(len(cs))})
		}
		want := slices.Clone(cs)
		slices.SortStableFunc(want, func(a, b Change) int { return compareChanges(&a, &b) })
		workers := 1 + int(seed%2)
		sortChanges(cs, workers)
		if !reflect.DeepEqual(cs, want) {
			t.Fatalf("seed %d, %d workers: sortChanges differs from a stable sort", seed, workers)
		}
	}
}
