package bulkwrite

import (
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// Report takes a batch's outcomes from the Writer. It is safe for
// concurrent use: batches of a kind may run at once.
type Report[B any] struct {
	r *run[B]
	// held, for a batch of creates by a Claimer, keeps the refused
	// creates for claim rather than reporting them at once.
	held *held[B]
}

// Done records items as written: counted (unless Aux), their ids learnt,
// and a created prefix lets the IP addresses under it be sent.
func (p *Report[B]) Done(items ...Item[B]) {
	r := p.r
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, it := range items {
		if it.Aux {
			continue
		}
		ch := it.Change
		r.res.count(ch.Key.Kind, ch.Action)
		if r.opt.Progress != nil {
			r.opt.Progress.Add("write "+string(ch.Key.Kind), 1)
		}
		r.parents.created(ch)
		r.w.Learned(ch, it.ID)
	}
}

// Failed records it as refused with msg; for an Aux item, its change
// is. A change refused is not written later in the Apply, nor is what
// refers to it.
func (p *Report[B]) Failed(it Item[B], msg string) {
	if p.holds(it) {
		p.held.add(it, msg)
		return
	}
	p.r.fail(it.Change, msg)
}

// Remember keeps, through learn and forget, the id of a written object
// that later writes refer to (a namespace, VLAN group or VLAN), and
// forgets those deleted or renumbered.
func Remember(ch *plan.Change, id string, learn func(resource.Key, string), forget func(resource.Key)) {
	switch ch.Key.Kind {
	case resource.KindNamespace, resource.KindVLANGroup, resource.KindVLAN:
	default:
		return
	}
	if ch.Action == plan.Delete {
		forget(ch.Key)
		return
	}
	if cur := ch.Current; cur != nil && cur.Key() != ch.Key {
		forget(cur.Key()) // renumbered: the id answers to the new key only
	}
	learn(ch.Key, id)
}
