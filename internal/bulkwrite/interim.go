package bulkwrite

import (
	"context"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// interim writes the interim values of the changes that carry them (a
// VLAN's temporary name), before any other write of the plan: a server
// that checks uniqueness against the database as it was before a bulk
// request (Nautobot), or one object at a time (NetBox), would otherwise
// find the name of one of two VLANs swapping names taken by the other,
// in one request and in either order. A change whose interim write fails
// is not written either; the write that wanted its value then fails on
// its own.
func (r *run[B]) interim(ctx context.Context, writes []*plan.Change) error {
	perKind := map[resource.Kind][]Item[B]{}
	for _, ch := range writes {
		if len(ch.Interim) == 0 {
			continue
		}
		it, err := r.w.Interim(ch)
		if err != nil {
			r.fail(ch, err.Error())
			continue
		}
		it.Aux = true
		perKind[ch.Key.Kind] = append(perKind[ch.Key.Kind], it)
	}
	for _, k := range resource.Kinds() {
		if err := r.batches(ctx, Batch[B]{Kind: k, Op: Update, Items: perKind[k], Interim: true}); err != nil {
			return err
		}
	}
	return nil
}
