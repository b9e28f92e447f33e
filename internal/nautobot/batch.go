package nautobot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/ipsync/ipsync/internal/bulkwrite"
	"github.com/ipsync/ipsync/internal/httpapi"
)

// retries500 is how often a write of one object is retried after an HTTP
// 500 before the 500 counts as that object's.
const retries500 = 2

// send writes items in one bulk request and returns the items written.
// When Nautobot refuses the batch (400, or 409 for a delete still in
// use), the batch is split in halves until each refused object stands
// alone, and the others are written; a bulk create's per-object error
// list shortcuts that. Only a failure to reach Nautobot is returned as an
// error.
//
// An HTTP 500 is split the same way, not retried. Nautobot validates a
// bulk write item by item against the database, then saves all items in
// one transaction; a clash between two items of the request (two VLANs
// of one group with the same name) passes validation and raises an
// IntegrityError, and a ValidationError raised in save() or a signal (a
// prefix's location whose type does not allow prefixes) is not turned
// into a 400 either: the whole request answers 500 and nothing of it is
// written. Such a 500 is deterministic, so retrying the batch only
// repeats it, and giving up would leave every later write undone. A
// transient 500 (a database hiccup) costs a split at most: the halves
// then go through. A single object's 500 is retried a little, since it
// may be transient, and then reported as that object's error, unless
// Nautobot also fails a plain read of the endpoint: then it is failing
// as a whole and the run stops. Other 5xx (502, 503, 504: a proxy, a
// restart) are retried as before.
func (a *applier) send(ctx context.Context, rep *report, ep endpoint, method string, items []item) ([]item, error) {
	if len(items) == 0 {
		return nil, nil
	}
	bulk := &bulkwrite.Bulk[map[string]any, written]{Pending: items}
	resent := false // an attempt whose answer was lost went before
	r := bulk.Request(method, ep.path, a.t, retries500, func(ctx context.Context, pending []item) ([]item, []item, error) {
		// An earlier attempt may have been committed before the answer
		// was lost. Ids are ours, so what exists now is what that
		// attempt created.
		resent = true
		return a.existing(ctx, ep, pending)
	}, nil)
	resp, err := a.c.do(ctx, r)
	bulk.Found(rep, a.c.log, ep.path)
	pending, existed, answer := bulk.Pending, bulk.Existed, bulk.Answer
	switch {
	case errors.Is(err, httpapi.ErrSkipped):
		return existed, nil
	case err != nil:
		return nil, fmt.Errorf("apply: %w", err)
	case resp.Status >= 200 && resp.Status < 300:
		done, err := a.check(rep, ep, method, pending, answer)
		if err != nil {
			return nil, err
		}
		rep.Done(done...)
		return append(existed, done...), nil
	case resp.Status == http.StatusBadRequest || (resp.Status == http.StatusConflict && method == http.MethodDelete):
		return a.refused(ctx, rep, ep, method, pending, resp.Body, existed, resent)
	case resp.Status == http.StatusInternalServerError:
		return a.serverFailed(ctx, rep, ep, method, pending, resp.Body, existed)
	}
	return nil, fmt.Errorf("apply: %w", r.Error(resp))
}

// serverFailed isolates the objects of a batch Nautobot answered with
// HTTP 500 (see send).
func (a *applier) serverFailed(ctx context.Context, rep *report, ep endpoint, method string, pending []item, body []byte, existed []item) ([]item, error) {
	if method == http.MethodPost {
		// Nautobot rolls the request's transaction back before it
		// answers 500; but a 500 raised after the commit (rendering the
		// answer) would leave the objects written. The ids are ours:
		// what exists now was written.
		done, rest, err := a.existing(ctx, ep, pending)
		if err != nil {
			return nil, fmt.Errorf("apply: nautobot answers HTTP 500 to a create at %s and fails a read there too: %w", ep.path, err)
		}
		rep.Done(done...)
		existed, pending = append(existed, done...), rest
	}
	switch len(pending) {
	case 0:
		return existed, nil
	case 1:
		if err := a.probe(ctx, ep); err != nil {
			return nil, fmt.Errorf("apply: nautobot answers HTTP 500 to a write of %s and fails a read at %s too: %w", pending[0].Change.Key, ep.path, err)
		}
		rep.Failed(pending[0], serverErrorMessage(body))
		return existed, nil
	}
	return a.split(ctx, rep, ep, method, pending, existed)
}

// probe reads one object of ep, with the retries of any read: it fails
// when Nautobot fails as a whole rather than on one object.
func (a *applier) probe(ctx context.Context, ep endpoint) error {
	r := httpapi.Request{Method: http.MethodGet, Path: ep.path, Query: url.Values{"limit": {"1"}, "depth": {"0"}}, Tally: a.t}
	resp, err := a.c.do(ctx, r)
	if err != nil {
		return err
	}
	if resp.Status != http.StatusOK {
		return r.Error(resp)
	}
	return nil
}

// split writes the halves of a batch one after the other.
func (a *applier) split(ctx context.Context, rep *report, ep endpoint, method string, pending, done []item) ([]item, error) {
	half := len(pending) / 2
	for _, part := range [][]item{pending[:half], pending[half:]} {
		got, err := a.send(ctx, rep, ep, method, part)
		if err != nil {
			return nil, err
		}
		done = append(done, got...)
	}
	return done, nil
}

// refused isolates the objects of a refused batch.
func (a *applier) refused(ctx context.Context, rep *report, ep endpoint, method string, pending []item, body []byte, existed []item, resent bool) ([]item, error) {
	done := existed
	list, ok := perItem(body, len(pending))
	if !ok && len(pending) == 1 {
		rep.Failed(pending[0], httpapi.ErrorMessage(body))
		return existed, nil
	}
	if ok && method == http.MethodPost {
		var good, before, clash []item
		clashes := map[string]map[string]any{}
		for i, e := range list {
			switch {
			case len(e) == 0:
				good = append(good, pending[i])
			case idTaken(e):
				before = append(before, pending[i])
			default:
				clash = append(clash, pending[i])
				clashes[pending[i].ID] = e
			}
		}
		if resent && len(clash) > 0 {
			// Nautobot names the field that clashes first: a name its
			// serializer checks before the model sees the id. Ids are
			// ours and new, so an object of that id is an earlier
			// attempt's write, committed after the retry checked.
			found, rest, err := a.existing(ctx, ep, clash)
			if err != nil {
				return nil, err
			}
			before, clash = append(before, found...), rest
		}
		for _, it := range clash {
			rep.Failed(it, httpapi.FieldMessages(clashes[it.ID]))
		}
		if len(before) > 0 {
			// The ids are ours and new: an earlier attempt whose answer
			// was lost (a timeout while Nautobot was still writing) has
			// committed these objects since the retry checked for them.
			a.c.log.Info("a retried create found objects an earlier attempt wrote", "path", ep.path, "objects", len(before))
			rep.Done(before...)
			done = append(done, before...)
		}
		if len(good) == len(pending) {
			// Nothing named: the request as a whole was refused.
			if len(pending) == 1 {
				rep.Failed(pending[0], httpapi.ErrorMessage(body))
				return done, nil
			}
			return a.split(ctx, rep, ep, method, pending, done)
		}
		got, err := a.send(ctx, rep, ep, method, good)
		return append(done, got...), err
	}
	if len(pending) == 1 {
		rep.Failed(pending[0], httpapi.ErrorMessage(body))
		return existed, nil
	}
	return a.split(ctx, rep, ep, method, pending, done)
}

// idTaken reports whether a create's errors say its id is taken.
func idTaken(e map[string]any) bool {
	msgs, _ := e["id"].([]any)
	for _, m := range msgs {
		if s, _ := m.(string); strings.Contains(s, "already exists") {
			return true
		}
	}
	return false
}

// existing parts items into those whose ids Nautobot has and the rest.
func (a *applier) existing(ctx context.Context, ep endpoint, items []item) (found, rest []item, err error) {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	got, err := byIDs[written](ctx, a.c, ep.path, ids, a.t)
	if err != nil {
		return nil, nil, fmt.Errorf("check which objects a lost create wrote: %w", err)
	}
	has := make(map[string]bool, len(got))
	for _, w := range got {
		has[w.ID] = true
	}
	for _, it := range items {
		if has[it.ID] {
			found = append(found, it)
		} else {
			rest = append(rest, it)
		}
	}
	return found, rest, nil
}

// check reads a successful write's answer. A bulk update answers only
// the objects it found; the others were deleted since the plan. Every
// object written must come back with its owner marker: if Nautobot
// dropped it, the custom field is not defined for the kind, and going on
// would leave objects no owner can find again.
func (a *applier) check(rep *report, ep endpoint, method string, items []item, got []written) ([]item, error) {
	if method == http.MethodDelete {
		return items, nil
	}
	byID := make(map[string]written, len(got))
	for _, w := range got {
		byID[w.ID] = w
	}
	done := make([]item, 0, len(items))
	for _, it := range items {
		w, ok := byID[it.ID]
		if !ok {
			rep.Failed(it, "not found in nautobot; it was deleted since the plan was made")
			continue
		}
		if !it.Aux {
			var owner string
			_ = json.Unmarshal(w.CustomFields[a.c.cfg.OwnerField], &owner)
			if want := string(it.Change.Desired.Meta().Owner); owner != want {
				return nil, fmt.Errorf("apply: nautobot stored %s without its owner marker (custom field %q is %q, want %q); is the custom field defined for %s?",
					it.Change.Key, a.c.cfg.OwnerField, owner, want, ep.ct)
			}
		}
		done = append(done, it)
	}
	return done, nil
}
