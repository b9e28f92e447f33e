package bulkwrite

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
		if l, ok := r.w.(Learner); ok {
			l.Learned(ch, it.ID)
		}
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
