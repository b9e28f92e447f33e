package nautobot

import (
	"context"
	"net/http"

	"github.com/ipsync/ipsync/internal/parallel"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// interim writes the interim values of the changes that carry them (a
// VLAN's temporary name), before any other write of the plan: Nautobot
// validates each item of a bulk write against the database as it was
// before the request, so two VLANs swapping names in one request, or in
// one order, would each find the other's name taken. A change whose
// interim write fails is not written either; the write that wanted its
// value then fails on its own.
func (a *applier) interim(ctx context.Context, writes []*plan.Change) error {
	perKind := map[resource.Kind][]item{}
	for _, ch := range writes {
		if len(ch.Interim) == 0 {
			continue
		}
		id := ch.Current.Meta().ID
		if id == "" {
			a.fail(ch, "the current object has no nautobot id")
			continue
		}
		body := map[string]any{"id": id}
		for _, f := range ch.Interim {
			keys, err := wireFields(ch.Key.Kind, f.Field)
			if err != nil {
				a.fail(ch, err.Error())
				continue
			}
			for _, k := range keys {
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
		for lo := 0; lo < len(items); lo += a.c.cfg.BatchSize {
			batch := items[lo:min(lo+a.c.cfg.BatchSize, len(items))]
			tasks = append(tasks, func(ctx context.Context) error {
				_, err := a.send(ctx, ep, http.MethodPatch, batch)
				return err
			})
		}
		if err := parallel.Run(ctx, a.writers(k), tasks); err != nil {
			return err
		}
	}
	return nil
}
