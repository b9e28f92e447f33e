package nautobot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// send writes items in one bulk request and returns the items written.
// When Nautobot refuses the batch (400, or 409 for a delete still in
// use), the batch is split in halves until each refused object stands
// alone, and the others are written; a bulk create's per-object error
// list shortcuts that. Only a failure to reach Nautobot is returned as an
// error.
func (a *applier) send(ctx context.Context, ep endpoint, method string, items []item) ([]item, error) {
	if len(items) == 0 {
		return nil, nil
	}
	pending := items
	var existed []item
	var answer []written
	r := request{method: method, path: ep.path, tally: a.t,
		decode: func(b []byte) error {
			if method == http.MethodDelete {
				return nil
			}
			answer = nil
			return json.Unmarshal(b, &answer)
		},
		body: func(ctx context.Context, attempt int, maybeSent bool) ([]byte, bool, error) {
			if method == http.MethodPost && maybeSent {
				// An earlier attempt may have been committed before the
				// answer was lost. Ids are ours, so what exists now is
				// what that attempt created.
				found, err := a.existing(ctx, ep, pending)
				if err != nil {
					return nil, false, err
				}
				var rest []item
				for _, it := range pending {
					if found[it.id] {
						existed = append(existed, it)
					} else {
						rest = append(rest, it)
					}
				}
				pending = rest
				if len(pending) == 0 {
					return nil, true, nil
				}
			}
			bodies := make([]map[string]any, len(pending))
			for i, it := range pending {
				bodies[i] = it.body
			}
			raw, err := json.Marshal(bodies)
			return raw, false, err
		}}
	resp, err := a.c.do(ctx, r)
	if len(existed) > 0 {
		a.c.log.Info("retried create found objects already written", "path", ep.path, "objects", len(existed))
		a.succeeded(ep, method, existed)
	}
	switch {
	case errors.Is(err, errSkipped):
		return existed, nil
	case err != nil:
		return nil, fmt.Errorf("apply: %w", err)
	case resp.status >= 200 && resp.status < 300:
		done, err := a.check(ep, method, pending, answer)
		if err != nil {
			return nil, err
		}
		a.succeeded(ep, method, done)
		return append(existed, done...), nil
	case resp.status == http.StatusBadRequest || (resp.status == http.StatusConflict && method == http.MethodDelete):
		return a.refused(ctx, ep, method, pending, resp.body, existed)
	}
	return nil, fmt.Errorf("apply: %w", apiError(r, resp))
}

// refused isolates the objects of a refused batch.
func (a *applier) refused(ctx context.Context, ep endpoint, method string, pending []item, body []byte, existed []item) ([]item, error) {
	if len(pending) == 1 {
		a.fail(pending[0].ch, errorMessage(body))
		return existed, nil
	}
	done := existed
	if list, ok := perItem(body, len(pending)); ok && method == http.MethodPost {
		var good []item
		for i, e := range list {
			if len(e) == 0 {
				good = append(good, pending[i])
			} else {
				a.fail(pending[i].ch, fieldMessages(e))
			}
		}
		got, err := a.send(ctx, ep, method, good)
		return append(done, got...), err
	}
	half := len(pending) / 2
	for _, part := range [][]item{pending[:half], pending[half:]} {
		got, err := a.send(ctx, ep, method, part)
		if err != nil {
			return nil, err
		}
		done = append(done, got...)
	}
	return done, nil
}

// existing returns which of the items' ids Nautobot has.
func (a *applier) existing(ctx context.Context, ep endpoint, items []item) (map[string]bool, error) {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.id
	}
	got, err := byIDs[written](ctx, a.c, ep.path, ids, a.t)
	if err != nil {
		return nil, fmt.Errorf("check which objects a lost create wrote: %w", err)
	}
	found := make(map[string]bool, len(got))
	for _, w := range got {
		found[w.ID] = true
	}
	return found, nil
}

// check reads a successful write's answer. A bulk update answers only
// the objects it found; the others were deleted since the plan. Every
// object written must come back with its owner marker: if Nautobot
// dropped it, the custom field is not defined for the kind, and going on
// would leave objects no owner can find again.
func (a *applier) check(ep endpoint, method string, items []item, got []written) ([]item, error) {
	if method == http.MethodDelete {
		return items, nil
	}
	byID := make(map[string]written, len(got))
	for _, w := range got {
		byID[w.ID] = w
	}
	done := make([]item, 0, len(items))
	for _, it := range items {
		w, ok := byID[it.id]
		if !ok {
			a.fail(it.ch, "not found in nautobot; it was deleted since the plan was made")
			continue
		}
		if !it.aux {
			var owner string
			_ = json.Unmarshal(w.CustomFields[a.c.cfg.OwnerField], &owner)
			if want := string(it.ch.Desired.Meta().Owner); owner != want {
				return nil, fmt.Errorf("apply: nautobot stored %s without its owner marker (custom field %q is %q, want %q); is the custom field defined for %s?",
					it.ch.Key, a.c.cfg.OwnerField, owner, want, ep.ct)
			}
		}
		done = append(done, it)
	}
	return done, nil
}

// succeeded counts written objects and remembers or forgets their ids.
func (a *applier) succeeded(ep endpoint, method string, items []item) {
	for _, it := range items {
		if it.aux {
			continue
		}
		a.res.count(it.ch.Key.Kind, it.ch.Action, 1)
		a.c.progress.Add("write "+string(it.ch.Key.Kind), 1)
		if k := it.ch.Key.Kind; slices.Contains([]resource.Kind{resource.KindNamespace, resource.KindVLANGroup, resource.KindVLAN}, k) {
			if it.ch.Action == plan.Delete {
				a.c.forget(it.ch.Key)
			} else {
				a.c.learn(it.ch.Key, it.id)
			}
		}
	}
}
