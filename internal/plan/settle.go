package plan

import "github.com/ipsync/ipsync/internal/resource"

// Settle turns the writes at the keys done into noops: a saved plan's
// changes the target already holds as the plan writes them, applied
// before (by this plan or another run). They are counted as in agreement
// and left out of Changes, so that applying the plan again writes only
// what is still to write. It returns how many it settled.
func (p *Plan) Settle(done map[resource.Key]bool) int {
	n := 0
	kept := p.Changes[:0]
	for _, c := range p.Changes {
		if !c.Action.Writes() || !done[c.Key] {
			kept = append(kept, c)
			continue
		}
		p.Summary.add(c.Key.Kind, c.Action, -1)
		if c.Action != Delete {
			p.Summary.add(c.Key.Kind, Noop, 1)
		}
		n++
	}
	clear(p.Changes[len(kept):])
	p.Changes = kept
	return n
}
