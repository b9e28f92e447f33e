package bulkwrite

import (
	"context"
	"fmt"

	"github.com/ipsync/ipsync/internal/resource"
)

// confirm reads the owners of the objects a batch changes or deletes as
// they are now, and takes out of it, reported, those that are no longer
// what the plan was made on: an object whose owner changed since it was
// read (handed to another owner, the marker taken off, or marked by hand)
// is refused, so a plan made on a stale view never writes over or deletes
// what is not its owner's; an object gone is deleted already, and an
// update of it refused. Creates are not asked about: what holds their key
// is the server's to refuse. It costs a read per batch, and leaves only the
// time between that read and the write for a change to slip in.
func (r *run[B]) confirm(ctx context.Context, b Batch[B], rep *Report[B]) (Batch[B], error) {
	if b.Op == Create || r.opt.Precondition {
		return b, nil
	}
	ids := make([]string, 0, len(b.Items))
	for _, it := range b.Items {
		ids = append(ids, it.ID)
	}
	now, err := r.w.Owners(ctx, b.Kind, ids)
	if err != nil {
		return b, fmt.Errorf("read the %s objects to %s again: %w", b.Kind, b.Op, err)
	}
	keep := make([]Item[B], 0, len(b.Items))
	for _, it := range b.Items {
		was := it.Change.Current.Meta().Owner
		owner, exists := now[it.ID]
		switch {
		case !exists && b.Op == Delete:
			r.opt.Log.Info("already deleted", "object", it.Change.Key.String())
			rep.Done(it)
		case !exists:
			rep.Failed(it, "not written: it was deleted since the plan was made")
		case owner != was:
			rep.Failed(it, fmt.Sprintf("not written: its owner changed since the plan was made, from %s to %s; the next plan sees it as it is",
				ownerText(was), ownerText(owner)))
		default:
			keep = append(keep, it)
		}
	}
	b.Items = keep
	return b, nil
}

func ownerText(o resource.Owner) string {
	if o == "" {
		return "none (no ipsync marker)"
	}
	return string(o)
}
