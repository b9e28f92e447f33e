package plan

import "github.com/ipsync/ipsync/internal/resource"

// Summary counts objects per kind and action.
type Summary map[resource.Kind]map[Action]int

func (s Summary) count(k resource.Kind, a Action) { s.add(k, a, 1) }

func (s Summary) add(k resource.Kind, a Action, n int) {
	m := s[k]
	if m == nil {
		m = map[Action]int{}
		s[k] = m
	}
	if m[a] += n; m[a] == 0 {
		delete(m, a) // a change the planner turned into another
	}
}

// Total is the number of objects of every kind with action a.
func (s Summary) Total(a Action) int {
	n := 0
	for _, m := range s {
		n += m[a]
	}
	return n
}

// Kinds lists the kinds present, in dependency order.
func (s Summary) Kinds() []resource.Kind {
	var out []resource.Kind
	for _, k := range resource.Kinds() {
		if _, ok := s[k]; ok {
			out = append(out, k)
		}
	}
	return out
}

// Writes is the number of changes that write to the target.
func (p *Plan) Writes() int {
	n := 0
	for _, c := range p.Changes {
		if c.Action.Writes() {
			n++
		}
	}
	return n
}
