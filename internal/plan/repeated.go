package plan

import (
	"slices"

	"github.com/ipsync/ipsync/internal/resource"
)

func declaredTwice(d resource.Object, policy Policy) Change {
	return Change{Action: Conflict, Key: d.Key(), Desired: d, Reason: "declared more than once by " + string(policy.Owner)}
}

// settle joins the parts in desired order and turns into conflicts the
// desired objects planned as the first of their identity that were not:
// those that lost their current object to an earlier one, and creates of
// an identity created before. It makes room for more changes to come:
// the deletes, added once the mass-delete guard has counted them.
func (m *matcher) settle(parts []*part, more int) *Plan {
	p := &Plan{Policy: m.policy, Summary: Summary{}, Owned: m.owned}
	for _, pt := range parts {
		more += len(pt.Changes)
		for k, counts := range pt.Summary {
			for a, c := range counts {
				p.Summary.add(k, a, c)
			}
		}
		for r, c := range pt.noops {
			p.noops[r] += c
		}
	}
	for _, pt := range parts {
		for _, dm := range pt.demoted {
			m.demote(p, parts[int(dm.d)/m.chunk], dm)
		}
	}
	if more > 0 {
		p.Changes = make([]Change, 0, more)
	}
	// The creates go into an index in desired order: one finds there a
	// create of its identity before it.
	creates := 0
	for _, pt := range parts {
		for _, c := range pt.Changes {
			if c.Action == Create {
				creates++
			}
		}
	}
	created := newIndex(m.desired, creates)
	h := m.hasher()
	for _, pt := range parts {
		for k := range pt.Changes {
			c := &pt.Changes[k]
			if c.Action != Create {
				continue
			}
			if _, first := created.add(h.hash(new(c.Desired.Identity())), int(pt.at[k])); first {
				continue
			}
			p.Summary.add(c.Key.Kind, Create, -1)
			*c = declaredTwice(c.Desired, m.policy)
			p.Summary.count(c.Key.Kind, Conflict)
		}
		p.Changes = append(p.Changes, pt.Changes...)
	}
	return p
}

// demote turns the plan of desired object dm.d, in part pt, into a
// conflict. What it was planned as is its change, or else was counted:
// a noop, or a skip.
func (m *matcher) demote(p *Plan, pt *part, dm demotion) {
	d := m.desired[dm.d]
	k, listed := slices.BinarySearch(pt.at, dm.d)
	if listed {
		c := pt.Changes[k]
		p.Summary.add(c.Key.Kind, c.Action, -1)
		pt.Changes[k] = declaredTwice(d, m.policy)
	} else {
		if len(d.Diff(m.current[dm.c])) == 0 {
			p.noops[d.Kind().Rank()]--
		} else {
			p.Summary.add(d.Kind(), Skip, -1)
		}
		pt.Changes = slices.Insert(pt.Changes, k, declaredTwice(d, m.policy))
		pt.at = slices.Insert(pt.at, k, dm.d)
	}
	p.Summary.count(pt.Changes[k].Key.Kind, Conflict)
}
