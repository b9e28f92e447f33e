package netbox

import (
	"context"
	"net/http"

	"github.com/ipsync/ipsync/internal/parallel"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// interim writes the interim values of the changes that carry them (a
// VLAN's temporary name), before any other write of the plan: NetBox
// validates the items of a bulk write in turn against the database, so
// two VLANs swapping names would find each other's name taken. A change
// whose interim write fails is not written either.
func (a *applier) interim(ctx context.Context, writes []*plan.Change) error {
	perKind := map[resource.Kind][]item{}
	for _, ch := range writes {
		if len(ch.Interim) == 0 {
			continue
		}
		id, err := currentID(ch)
		if err != nil {
			a.fail(ch, err.Error())
			continue
		}
		body := map[string]any{"id": id}
		for _, f := range ch.Interim {
			for _, k := range wireFields(ch.Key.Kind, f.Field) {
				body[k] = f.New
			}
		}
		perKind[ch.Key.Kind] = append(perKind[ch.Key.Kind], item{ch: ch, id: id, body: body, aux: true})
	}
	for _, k := range resource.Kinds() {
		items := perKind[k]
		ep, ok := endpointOf(k)
		if len(items) == 0 || !ok {
			continue
		}
		var tasks []func(context.Context) error
		if a.saved {
			for _, it := range items {
				tasks = append(tasks, func(ctx context.Context) error { return a.sendOne(ctx, ep, http.MethodPatch, it) })
			}
		} else {
			for lo := 0; lo < len(items); lo += a.c.cfg.BatchSize {
				batch := items[lo:min(lo+a.c.cfg.BatchSize, len(items))]
				tasks = append(tasks, func(ctx context.Context) error { return a.send(ctx, ep, http.MethodPatch, batch) })
			}
		}
		if err := parallel.Run(ctx, a.writers(k, a.saved), tasks); err != nil {
			return err
		}
	}
	return nil
}
