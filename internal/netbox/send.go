package netbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ipsync/ipsync/internal/httpapi"
)

// retries500 is how often a write of one object is retried after an HTTP
// 500 before the 500 counts as that object's.
const retries500 = 2

// written is what a write's answer is checked for.
type written struct {
	ID           int                        `json:"id"`
	CustomFields map[string]json.RawMessage `json:"custom_fields"`
}

// send writes items in bulk requests until each is written or refused.
// NetBox writes a bulk request all or nothing, and a refused one names
// the objects at fault: those are reported, and the others sent again
// in one request, so a bad object costs one request more, not a
// bisection. Only a failure to reach NetBox is returned as an error.
func (a *applier) send(ctx context.Context, ep endpoint, method string, items []item) error {
	for pending := items; len(pending) > 0; {
		rest, err := a.sendBatch(ctx, ep, method, pending)
		if err != nil {
			return err
		}
		pending = rest
	}
	return nil
}

// sendBatch sends one bulk request and returns the items to send again.
func (a *applier) sendBatch(ctx context.Context, ep endpoint, method string, pending []item) ([]item, error) {
	var existed []item
	var answer []written
	r := httpapi.Request{Method: method, Path: ep.path, Tally: a.t, Answer500: true,
		Decode: func(b []byte) error {
			if method == http.MethodDelete {
				return nil
			}
			answer = nil
			return json.Unmarshal(b, &answer)
		},
		Body: func(ctx context.Context, _ int, maybeSent bool) ([]byte, bool, error) {
			if method == http.MethodPost && maybeSent {
				// An earlier attempt may have been committed before its
				// answer was lost. NetBox chooses the ids, so what that
				// attempt made is found by natural key and owner.
				found, err := a.lostCreates(ctx, ep, pending)
				if err != nil {
					return nil, false, err
				}
				var rest []item
				for _, it := range pending {
					if id, ok := found[it.ch.Key]; ok {
						it.id = id
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
	if len(pending) == 1 {
		r.Retries500 = retries500
	}
	resp, err := a.c.api.Do(ctx, r)
	if len(existed) > 0 {
		a.c.log.Info("retried create found objects already written", "path", ep.path, "objects", len(existed))
		a.succeeded(existed)
	}
	switch {
	case errors.Is(err, httpapi.ErrSkipped):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("apply: %w", err)
	case resp.Status >= 200 && resp.Status < 300:
		done, err := a.check(ep, method, pending, answer)
		if err != nil {
			return nil, err
		}
		a.succeeded(done)
		return nil, nil
	case resp.Status == http.StatusBadRequest || resp.Status == http.StatusConflict || resp.Status == http.StatusForbidden:
		return a.refused(ctx, ep, method, pending, resp.Body)
	case resp.Status == http.StatusInternalServerError:
		if len(pending) == 1 {
			a.fail(pending[0].ch, "netbox failed on it (HTTP 500): "+httpapi.Snippet(resp.Body))
			return nil, nil
		}
		// A 500 names no object: the halves are sent on their own
		// until the one it fails on stands alone.
		half := len(pending) / 2
		if err := a.send(ctx, ep, method, pending[:half]); err != nil {
			return nil, err
		}
		return pending[half:], nil
	}
	return nil, fmt.Errorf("apply: %w", r.Error(resp))
}

// refused reports the objects a refused bulk write names and returns the
// others, to send again.
func (a *applier) refused(ctx context.Context, ep endpoint, method string, pending []item, body []byte) ([]item, error) {
	var e bulkErrors
	_ = json.Unmarshal(body, &e)
	bad := map[int]string{} // index in pending -> message
	for _, x := range e.Errors {
		msg := fieldMessages(x.Errors)
		switch {
		case x.Index != nil && *x.Index >= 0 && *x.Index < len(pending):
			bad[*x.Index] = msg
		case x.ID != nil:
			for i, it := range pending {
				if it.id == *x.ID {
					if strings.Contains(msg, "does not exist") {
						msg = "not found in netbox; it was deleted since the plan was made"
					}
					bad[i] = msg
				}
			}
		}
	}
	if len(bad) == 0 {
		// Nothing named: the request as a whole was refused.
		if len(pending) == 1 {
			a.fail(pending[0].ch, errorMessage(body))
			return nil, nil
		}
		half := len(pending) / 2
		if err := a.send(ctx, ep, method, pending[:half]); err != nil {
			return nil, err
		}
		return pending[half:], nil
	}
	var rest []item
	for i, it := range pending {
		if msg, ok := bad[i]; ok {
			a.fail(it.ch, msg)
		} else {
			rest = append(rest, it)
		}
	}
	return rest, nil
}

// check reads a successful write's answer: a create's objects come back
// in the order sent (NetBox answers them by id, which grows in that
// order), and every object written must carry its owner, or no owner
// could find it again.
func (a *applier) check(ep endpoint, method string, items []item, got []written) ([]item, error) {
	if method == http.MethodDelete {
		return items, nil
	}
	if len(got) != len(items) {
		return nil, fmt.Errorf("apply: netbox answered %d objects to a write of %d at %s", len(got), len(items), ep.path)
	}
	if method == http.MethodPost {
		for i := range items {
			items[i].id = got[i].ID
		}
	}
	byID := make(map[int]written, len(got))
	for _, w := range got {
		byID[w.ID] = w
	}
	for _, it := range items {
		if it.aux {
			continue
		}
		var owner string
		_ = json.Unmarshal(byID[it.id].CustomFields[a.c.cfg.OwnerField], &owner)
		if want := string(it.ch.Desired.Meta().Owner); owner != want {
			return nil, fmt.Errorf("apply: netbox stored %s without its owner marker (custom field %q is %q, want %q); is the custom field defined for %s?",
				it.ch.Key, a.c.cfg.OwnerField, owner, want, ep.ot)
		}
	}
	return items, nil
}
