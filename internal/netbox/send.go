package netbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ipsync/ipsync/internal/bulkwrite"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/parallel"
)

type report = bulkwrite.Report[map[string]any]

// Write sends one batch of the engine: in bulk, or for a saved plan's
// updates and deletes, one object per request with If-Match.
func (a *applier) Write(ctx context.Context, b bulkwrite.Batch[map[string]any], rep *report) error {
	ep, ok := endpointOf(b.Kind)
	if !ok {
		for _, it := range b.Items {
			rep.Failed(it, fmt.Sprintf("netbox holds no %s objects", b.Kind))
		}
		return nil
	}
	method := b.Op.Method()
	if b.Op == bulkwrite.Create {
		items, sent, err := a.intend(ctx, ep, b.Items, rep)
		if err != nil {
			return err
		}
		defer sent()
		return a.send(ctx, ep, method, items, rep)
	}
	if !a.saved {
		return a.send(ctx, ep, method, b.Items, rep)
	}
	tasks := make([]func(context.Context) error, len(b.Items))
	for i, it := range b.Items {
		tasks[i] = func(ctx context.Context) error { return a.sendOne(ctx, ep, method, it, rep) }
	}
	return parallel.Run(ctx, a.c.cfg.Concurrency, tasks)
}

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
func (a *applier) send(ctx context.Context, ep endpoint, method string, items []item, rep *report) error {
	for pending := items; len(pending) > 0; {
		rest, err := a.sendBatch(ctx, ep, method, pending, rep)
		if err != nil {
			return err
		}
		pending = rest
	}
	return nil
}

// sendBatch sends one bulk request and returns the items to send again.
func (a *applier) sendBatch(ctx context.Context, ep endpoint, method string, pending []item, rep *report) ([]item, error) {
	bulk := &bulkwrite.Bulk[map[string]any, written]{Pending: pending}
	var lastSend time.Time // of the newest attempt, which may still be running
	r := bulk.Request(method, ep.path, a.t, retries500, func(ctx context.Context, pending []item) ([]item, []item, error) {
		// An earlier attempt may have been committed before its answer
		// was lost. NetBox chooses the ids, so what that attempt made
		// is found by natural key and owner.
		return a.alreadyWritten(ctx, ep, pending, lastSend.Add(a.c.cfg.RequestDeadline))
	}, func() { lastSend = a.c.clock.Now() })
	resp, err := a.c.api.Do(ctx, r)
	bulk.Found(rep, a.c.log, ep.path)
	pending, answer := bulk.Pending, bulk.Answer
	switch {
	case errors.Is(err, httpapi.ErrSkipped):
		return nil, nil
	case err != nil:
		a.unanswered.Store(true)
		return nil, fmt.Errorf("apply: %w", err)
	case resp.Status >= 200 && resp.Status < 300:
		done, err := a.check(ep, method, pending, answer)
		if err != nil {
			return nil, err
		}
		rep.Done(done...)
		return nil, nil
	case resp.Status == http.StatusBadRequest || resp.Status == http.StatusConflict || resp.Status == http.StatusForbidden:
		return a.refused(ctx, ep, method, pending, resp.Body, rep)
	case resp.Status == http.StatusInternalServerError:
		if method == http.MethodPost {
			// NetBox rolls a failed request's transaction back, but a
			// 500 raised after the commit (rendering the answer) leaves
			// the objects written: what exists now is not sent again.
			// The answer came, so the request is over: no waiting.
			written, rest, err := a.alreadyWritten(ctx, ep, pending, time.Time{})
			if err != nil {
				return nil, fmt.Errorf("apply: netbox answers HTTP 500 to a create at %s and fails a read there too: %w", ep.path, err)
			}
			rep.Done(written...)
			if pending = rest; len(pending) == 0 {
				return nil, nil
			}
		}
		if len(pending) == 1 {
			rep.Failed(pending[0], "netbox failed on it (HTTP 500): "+httpapi.Snippet(resp.Body))
			return nil, nil
		}
		// A 500 names no object: the halves are sent on their own
		// until the one it fails on stands alone.
		half := len(pending) / 2
		if err := a.send(ctx, ep, method, pending[:half], rep); err != nil {
			return nil, err
		}
		return pending[half:], nil
	}
	return nil, fmt.Errorf("apply: %w", r.Error(resp))
}

// refused reports the objects a refused bulk write names and returns the
// others, to send again.
func (a *applier) refused(ctx context.Context, ep endpoint, method string, pending []item, body []byte, rep *report) ([]item, error) {
	var e bulkErrors
	_ = json.Unmarshal(body, &e)
	bad := map[int]string{} // index in pending -> message
	for _, x := range e.Errors {
		msg := httpapi.FieldMessages(x.Errors)
		switch {
		case x.Index != nil && *x.Index >= 0 && *x.Index < len(pending):
			bad[*x.Index] = msg
		case x.ID != nil:
			for i, it := range pending {
				if it.ID == strconv.Itoa(*x.ID) {
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
			rep.Failed(pending[0], httpapi.ErrorMessage(body))
			return nil, nil
		}
		half := len(pending) / 2
		if err := a.send(ctx, ep, method, pending[:half], rep); err != nil {
			return nil, err
		}
		return pending[half:], nil
	}
	var rest []item
	for i, it := range pending {
		if msg, ok := bad[i]; ok {
			rep.Failed(it, msg)
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
			items[i].ID = strconv.Itoa(got[i].ID)
		}
	}
	byID := make(map[string]written, len(got))
	for _, w := range got {
		byID[strconv.Itoa(w.ID)] = w
	}
	for _, it := range items {
		if it.Aux {
			continue
		}
		var owner string
		_ = json.Unmarshal(byID[it.ID].CustomFields[a.c.cfg.OwnerField], &owner)
		if want := string(it.Change.Desired.Meta().Owner); owner != want {
			return nil, fmt.Errorf("apply: netbox stored %s without its owner marker (custom field %q is %q, want %q); is the custom field defined for %s?",
				it.Change.Key, a.c.cfg.OwnerField, owner, want, ep.ot)
		}
	}
	return items, nil
}
