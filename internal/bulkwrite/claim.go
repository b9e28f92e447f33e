package bulkwrite

import (
	"context"
	"fmt"
	"sync"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// Claimer is the part of a Writer that finds who holds the keys of
// creates the server refused. A create is refused as a clash when an
// object already holds its key; when that object carries the marker of
// the create's own owner, it is this owner's write from an earlier run
// whose outcome the plan could not see (the run was killed, or its answer
// lost, and the server committed it after this run's plan read the
// target), or one a stale view missed. Either way the owner's object is
// brought to the plan by an update instead, and reported written: a rerun
// converges at once rather than refusing its own writes. A holder of
// another owner, or of none, stays a clash.
type Claimer[B any] interface {
	// Claimed returns, by index into items (creates of kind k), the id of
	// the object holding each one's key whose marker names the item's
	// owner; items whose key is free or held by another are absent.
	Claimed(ctx context.Context, k resource.Kind, items []Item[B]) (map[int]string, error)
	// AsUpdate is the create it rewritten as an update of the object id
	// to the create's fields.
	AsUpdate(it Item[B], id string) Item[B]
	// Unguarded says the server does not keep the key of the create it
	// unique (NetBox: a VRF's name), so it would write a second object
	// where a clash is wanted: its holder is looked up before it is sent.
	Unguarded(it Item[B]) bool
}

// refusal is a create the server refused, held until its key's holder
// is known.
type refusal[B any] struct {
	it  Item[B]
	msg string
}

// held collects the refused creates of one batch.
type held[B any] struct {
	mu   sync.Mutex
	list []refusal[B]
}

func (h *held[B]) add(it Item[B], msg string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.list = append(h.list, refusal[B]{it, msg})
}

// claim settles the creates of kind k a batch had refused: those whose
// key an object of their owner holds are written as updates of it; the
// others are reported refused with the server's message.
func (r *run[B]) claim(ctx context.Context, k resource.Kind, h *held[B]) error {
	if h == nil || len(h.list) == 0 {
		return nil
	}
	refused := h.list
	items := make([]Item[B], len(refused))
	for i, f := range refused {
		items[i] = f.it
	}
	free, err := r.updateClaimed(ctx, k, items, "refused ")
	for _, i := range free {
		r.fail(refused[i].it.Change, refused[i].msg)
	}
	return err
}

// preclaim writes the creates of b whose keys the server does not keep
// unique, and an object of their owner holds, as updates of it, and
// returns the rest of b to create.
func (r *run[B]) preclaim(ctx context.Context, b Batch[B]) (Batch[B], error) {
	if b.Op != Create {
		return b, nil
	}
	var unguarded []Item[B]
	var rest []Item[B]
	for _, it := range b.Items {
		if r.w.Unguarded(it) {
			unguarded = append(unguarded, it)
		} else {
			rest = append(rest, it)
		}
	}
	if len(unguarded) == 0 {
		return b, nil
	}
	free, err := r.updateClaimed(ctx, b.Kind, unguarded, "")
	if err != nil {
		return b, err
	}
	for _, i := range free {
		rest = append(rest, unguarded[i])
	}
	b.Items = rest
	return b, nil
}

// updateClaimed asks the Claimer who holds the keys of items, creates of
// kind k, writes those an object of the item's own owner holds as updates
// of it, and returns the indexes of the others: all of them when the
// holders could not be read. what says which creates they are, for the
// error.
func (r *run[B]) updateClaimed(ctx context.Context, k resource.Kind, items []Item[B], what string) ([]int, error) {
	c := r.w.(Claimer[B])
	ids, err := c.Claimed(ctx, k, items)
	if err != nil {
		all := make([]int, len(items))
		for i := range all {
			all[i] = i
		}
		return all, fmt.Errorf("read who holds the keys of %d %s%s creates: %w", len(items), what, k, err)
	}
	var updates []Item[B]
	var free []int
	for i, it := range items {
		if id, ok := ids[i]; ok {
			updates = append(updates, c.AsUpdate(it, id))
		} else {
			free = append(free, i)
		}
	}
	if len(updates) == 0 {
		return free, nil
	}
	// A warning, so that a person at the terminal reads it: the run
	// converged on objects it did not create itself.
	r.opt.Log.Warn("creates found their objects already written by an earlier run of their owner (killed, or its answer lost, after this plan read the target): updated them to the plan instead",
		"kind", string(k), "objects", len(updates))
	return free, r.w.Write(ctx, Batch[B]{Kind: k, Op: Update, Items: updates}, &Report[B]{r: r})
}

// holds says whether rep's refused creates wait for claim.
func (p *Report[B]) holds(it Item[B]) bool {
	return p.held != nil && !it.Aux && it.Change.Action == plan.Create
}
