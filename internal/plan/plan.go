// Package plan computes what must change in a target so that it holds what
// an owner wants, and nothing it does not own is touched. It is pure: no
// I/O, no logging, no clocks.
package plan

import (
	"fmt"

	"github.com/ipsync/ipsync/internal/plural"
	"github.com/ipsync/ipsync/internal/resource"
)

// Plan is the outcome of comparing desired with current state.
type Plan struct {
	Policy Policy
	// Changes lists every object that is created, updated, adopted, deleted
	// or in conflict, in the order they must be applied: creates and updates
	// parents first, then deletes children first, then conflicts. The
	// changes' Interim values go before all of them.
	Changes []Change
	// Summary counts objects per kind and action, noops and skips included.
	Summary Summary
	// Owned is how many current objects carry the policy owner's marker.
	Owned int
	// Refusals are reasons the plan must not be applied as it is.
	Refusals []string
	// Leaks are what the owner's source holds that nothing accounts for
	// (a VLAN segment without ports, a segment range no spec declares).
	// The planner does not make them; the caller hands them on, so that
	// whoever reads the plan, or applies it later, sees them.
	Leaks []Leak

	noops [kindCount]int // counted apart from Summary: most objects are noops
}

const kindCount = 9 // len(resource.Kinds())

// Leak is something a source holds that nothing accounts for.
type Leak struct {
	Kind    string `json:"kind"`
	Key     string `json:"key"`
	Message string `json:"message"`
}

func (p *Plan) foldNoops() {
	for r, n := range p.noops {
		if n > 0 {
			k := resource.Kinds()[r]
			if p.Summary[k] == nil {
				p.Summary[k] = map[Action]int{}
			}
			p.Summary[k][Noop] += n
		}
	}
}

// Skip counts objects whose change the policy's mode leaves out (updates in
// create-only, deletes in upsert-only and create-only). It never appears in
// Changes.
const Skip Action = '/'

// Make compares desired (objects the policy owner wants) with current (what
// the target holds in the owner's scope) and plans the changes. Objects
// are matched by natural key; unique keys besides it (a VLAN's name in
// its group) then refuse, renumber or order the changes (see uniques).
func Make(desired, current []resource.Object, policy Policy) *Plan {
	return makeWith(desired, current, policy, defaultTuning(len(desired)+len(current)))
}

func makeWith(desired, current []resource.Object, policy Policy, t tuning) *Plan {
	m := match(desired, current, policy, t)
	return m.plan.finish(desired, current, m.deletes, m.keyed, t.workers)
}

// finish plans what needs every object matched first: unique keys, the
// mass-delete guard, the refusal of conflicts, and the order.
func (p *Plan) finish(desired, current []resource.Object, del []Change, keyed keyed, workers int) *Plan {
	del, taken := p.uniques(desired, current, del, keyed)
	p.foldNoops()
	if reason := p.Policy.massDelete(len(del), p.Owned); reason != "" {
		p.Refusals = append(p.Refusals, reason)
	}
	for _, c := range del {
		p.add(c)
	}
	// Conflicts over unique keys have refusals of their own, naming both
	// objects; the rest are objects in the way by natural key.
	var byKey []Change
	for _, c := range p.Changes {
		if c.Action == Conflict && !taken[c.Desired] {
			byKey = append(byKey, c)
		}
	}
	if len(byKey) > 0 {
		p.Refusals = append(p.Refusals, conflictRefusal(byKey, len(byKey), p.Policy))
	}
	sortChanges(p.Changes, workers)
	return p
}

// conflictRefusal explains n conflicts. It suggests --adopt only when
// adopting would resolve some: for unmarked objects, when the run does not
// adopt already and its mode lets it.
func conflictRefusal(changes []Change, n int, policy Policy) string {
	unmarked := 0
	for _, c := range changes {
		if c.Action == Conflict && c.Current != nil && c.Current.Meta().Owner == "" {
			unmarked++
		}
	}
	msg := fmt.Sprintf("%s: objects that %s does not own match desired ones", plural.Of(n, "conflict"), policy.Owner)
	switch {
	case unmarked > 0 && policy.Mode == ModeCreateOnly:
		return msg + "; create-only never adopts: resolve them by hand, or adopt them in another mode"
	case unmarked > 0 && !policy.Adopt:
		if unmarked == n {
			return msg + "; they carry no ipsync marker: rerun with --adopt to take them over, or remove them"
		}
		return fmt.Sprintf("%s; %d carry no ipsync marker (--adopt takes those over), the others belong to another owner: resolve those by hand", msg, unmarked)
	}
	return msg + "; they belong to another owner: change that owner's data or this one's, never both"
}

// compare decides what to do with a desired object the target already has.
func (p *Plan) compare(d, c resource.Object) {
	owner := c.Meta().Owner
	if owner == p.Policy.Owner {
		fields := d.Diff(c)
		switch {
		case len(fields) == 0:
			p.noops[d.Kind().Rank()]++
		case p.Policy.Mode == ModeCreateOnly:
			p.Summary.count(d.Kind(), Skip)
		default:
			p.add(Change{Action: Update, Key: d.Key(), Desired: d, Current: c, Fields: fields})
		}
		return
	}
	k := d.Key()
	switch {
	case owner == "" && p.Policy.Adopt && p.Policy.Mode != ModeCreateOnly:
		p.add(Change{Action: Adopt, Key: k, Desired: d, Current: c, Fields: d.Diff(c),
			Reason: "exists without an ipsync marker; adopted by " + string(p.Policy.Owner)})
	case owner == "" && p.Policy.Mode == ModeCreateOnly:
		p.add(Change{Action: Conflict, Key: k, Desired: d, Current: c, Fields: d.Diff(c),
			Reason: "exists without an ipsync marker; create-only does not adopt"})
	case owner == "":
		p.add(Change{Action: Conflict, Key: k, Desired: d, Current: c, Fields: d.Diff(c),
			Reason: "exists without an ipsync marker; rerun with --adopt to take it over"})
	default:
		p.add(Change{Action: Conflict, Key: k, Desired: d, Current: c, Fields: d.Diff(c),
			Reason: "owned by " + string(owner) + "; " + string(p.Policy.Owner) + " must not change it"})
	}
}

func (p *Plan) add(c Change) {
	p.Changes = append(p.Changes, c)
	p.Summary.count(c.Key.Kind, c.Action)
}

// empty is a zero object of o's kind, so that Diff against it lists every
// field that is set: a create's or a delete's field values.
func empty(o resource.Object) resource.Object {
	e, err := resource.New(o.Kind())
	if err != nil {
		panic(err) // o's Kind comes from a concrete resource type
	}
	return e
}

// blanks are an empty object of each kind. Diff only reads them, so the
// creates and deletes of a plan share them.
func blanks() [kindCount]resource.Object {
	var out [kindCount]resource.Object
	for r, k := range resource.Kinds() {
		out[r], _ = resource.New(k)
	}
	return out
}

// empty is an empty object of o's kind, as the package's empty gives it.
func (m *matcher) empty(o resource.Object) resource.Object {
	if r := o.Kind().Rank(); r >= 0 {
		return m.blank[r]
	}
	return empty(o)
}
