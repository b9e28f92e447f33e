package reconcile

import (
	"fmt"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// Stale lists the objects a saved plan touches that are no longer as the plan
// saw them: created since (for creates), or changed, re-owned or gone (for
// updates, adopts and deletes), compared by the target's change stamp.
func Stale(p *plan.Plan, current []resource.Object) []string {
	var out []string
	for _, m := range stale(p, current) {
		if !m.applied {
			out = append(out, m.why)
		}
	}
	return out
}

// StaleCreates is Stale for a target that writes a saved plan's updates
// and deletes only to objects still as the plan saw them (a compare-and-swap
// per object): it lists only what that cannot guard, a key taken since by
// an object the plan would create or renumber to.
func StaleCreates(p *plan.Plan, current []resource.Object) []string {
	var out []string
	for _, m := range stale(p, current) {
		if m.taken && !m.applied {
			out = append(out, m.why)
		}
	}
	return out
}

// Applied lists the writes of a saved plan the target already holds as
// the plan writes them: created or updated with the plan's fields and
// owner, or deleted. Applying such a plan again is not stale for them:
// they are done.
func Applied(p *plan.Plan, current []resource.Object) map[resource.Key]bool {
	done := map[resource.Key]bool{}
	for _, m := range stale(p, current) {
		if m.applied {
			done[m.key] = true
		}
	}
	return done
}

// moved is one change of a saved plan whose object is no longer as the
// plan saw it.
type moved struct {
	key   resource.Key // the change's
	why   string
	taken bool // its key was taken since, by an object the plan did not see
	// applied: the target holds the object as the change writes it
	// (a delete: the object is gone).
	applied bool
}

func stale(p *plan.Plan, current []resource.Object) []moved {
	now := make(map[resource.Key]resource.Object, len(current))
	for _, c := range current {
		now[c.Key()] = c
	}
	var out []moved
	add := func(c plan.Change, taken bool, format string, args ...any) {
		m := moved{key: c.Key, why: fmt.Sprintf(format, args...), taken: taken}
		if c.Action == plan.Delete {
			_, m.applied = now[c.Key]
			m.applied = !m.applied
		} else if cur, ok := now[c.Key]; ok && c.Desired != nil {
			m.applied = cur.Meta().Owner == p.Policy.Owner && len(c.Desired.Diff(cur)) == 0
		}
		out = append(out, m)
	}
	for _, c := range p.Changes {
		if !c.Action.Writes() {
			continue
		}
		// An update may renumber its object (Current's key differs): the
		// object is looked up by the key it has, and the key it moves to
		// must still be free.
		key := c.Key
		if c.Current != nil {
			key = c.Current.Key()
		}
		if _, taken := now[c.Key]; taken && key != c.Key {
			add(c, true, "%s: created by someone else since the plan", c.Key)
			continue
		}
		cur, exists := now[key]
		switch {
		case c.Action == plan.Create && exists:
			add(c, true, "%s: created by someone else since the plan", c.Key)
		case c.Action == plan.Create:
		case !exists:
			add(c, false, "%s: gone since the plan", key)
		case cur.Meta().Owner != c.Current.Meta().Owner:
			add(c, false, "%s: owner changed from %q to %q", key, c.Current.Meta().Owner, cur.Meta().Owner)
		case cur.Meta().Version != c.Current.Meta().Version || cur.Meta().ID != c.Current.Meta().ID:
			add(c, false, "%s: changed at %s (plan saw %s)", key, cur.Meta().Version, c.Current.Meta().Version)
		}
	}
	return out
}
