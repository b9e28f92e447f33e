// Package drift reports where the sides disagree: per owner, what a sync
// would change in the target, plus leaks the sources point out. The CLI's
// `ipsync drift` and the agent's status page render the same report.
package drift

import (
	"fmt"
	"time"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// Report is the drift of every owner against one target.
type Report struct {
	GeneratedAt time.Time `json:"generated_at"`
	Target      string    `json:"target"`
	Owners      []Owner   `json:"owners"`
	// Ranges are the ranges filling up, where they were counted.
	Ranges *Ranges `json:"ranges,omitempty"`
}

// Owner is one owner's drift. Error is set when the owner could not be
// checked (a side unreachable, an invalid spec); then nothing else is known
// and nothing was concluded.
type Owner struct {
	Owner resource.Owner `json:"owner"`
	// Target is set when the owner is compared with something other than
	// the report's target: the spec's segment ranges with a site's Neutron.
	Target  string            `json:"target,omitempty"`
	Error   string            `json:"error,omitempty"`
	Summary []plan.SummaryRow `json:"summary"`
	Items   []Item            `json:"items"`
	Leaks   []Leak            `json:"leaks,omitempty"`
}

// Item is one object that differs.
type Item struct {
	Kind   resource.Kind        `json:"kind"`
	Key    string               `json:"key"`
	Drift  string               `json:"drift"` // missing, different, extra, unmarked, foreign
	Fields []resource.FieldDiff `json:"fields,omitempty"`
	Reason string               `json:"reason,omitempty"`
}

// Leak is something a source holds that nothing accounts for: a VLAN
// segment without ports, a segment range no spec declares. Plans carry
// the same leaks.
type Leak = plan.Leak

// FromPlan turns a plan into an owner's drift: creates are objects missing
// in the target, updates are different, deletes are extra, conflicts are
// unmarked or foreign objects in the way.
func FromPlan(p *plan.Plan, leaks []Leak) Owner {
	o := Owner{Owner: p.Policy.Owner, Summary: p.Summary.Rows(), Items: []Item{}, Leaks: leaks}
	for _, c := range p.Changes {
		it := Item{Kind: c.Key.Kind, Key: c.Key.Name, Fields: c.Fields, Reason: c.Reason}
		switch c.Action {
		case plan.Create:
			it.Drift = "missing"
		case plan.Update:
			it.Drift = "different"
		case plan.Adopt:
			it.Drift = "unmarked"
		case plan.Delete:
			it.Drift = "extra"
		case plan.Conflict:
			it.Drift = "foreign"
			if c.Current != nil && c.Current.Meta().Owner == "" {
				it.Drift = "unmarked"
			}
		default:
			continue
		}
		o.Items = append(o.Items, it)
	}
	return o
}

// Written is o once its plan was written whole: nothing is left to drift,
// what was missing, different or unmarked is now in agreement, and what
// was extra is gone. Conflicts and skips stay as they were (a plan with
// conflicts writes nothing), and so do leaks, which no write mends.
func (o Owner) Written() Owner {
	rows := make([]plan.SummaryRow, len(o.Summary))
	for i, r := range o.Summary {
		r.Noop += r.Create + r.Update + r.Adopt
		r.Create, r.Update, r.Adopt, r.Delete = 0, 0, 0, 0
		rows[i] = r
	}
	o.Summary, o.Items = rows, []Item{}
	return o
}

// Name is the owner as headings show it: with the target when it is not
// the report's.
func (o Owner) Name() string {
	if o.Target == "" {
		return string(o.Owner)
	}
	return fmt.Sprintf("%s (in %s)", o.Owner, o.Target)
}

// Count is the number of drifting objects and leaks of all owners.
func (r *Report) Count() int {
	items, leaks := r.Counts()
	return items + leaks
}

// Counts are the drifting objects and the leaks of all owners, apart.
func (r *Report) Counts() (items, leaks int) {
	for _, o := range r.Owners {
		items, leaks = items+len(o.Items), leaks+len(o.Leaks)
	}
	return items, leaks
}

// ByKind counts drifting objects per kind and drift, for metrics.
func (o Owner) ByKind() map[resource.Kind]map[string]int {
	out := map[resource.Kind]map[string]int{}
	for _, it := range o.Items {
		if out[it.Kind] == nil {
			out[it.Kind] = map[string]int{}
		}
		out[it.Kind][it.Drift]++
	}
	return out
}
