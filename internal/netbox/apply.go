package netbox

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/ipsync/ipsync/internal/bulkwrite"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sot"
)

// item is one object of a write; its body is the request object.
type item = bulkwrite.Item[map[string]any]

// applier is one Write in progress: the NetBox wire of the shared write
// engine.
type applier struct {
	c *Client
	r *reading // what the writes name objects by
	t *httpapi.Tally
	// saved sends updates and deletes one object per request with
	// If-Match (see ApplySaved).
	saved bool
	// versions are the versions objects have after an interim write,
	// for the If-Match of their own write.
	versions *versions
	// intents are the records of racy creates on their way (intent.go);
	// unanswered says a write went without an answer, so they may be.
	intents    *intents
	unanswered atomic.Bool
}

// Write writes the changes in dependency order, naming what they refer
// to as r knows it,, in bulk requests of
// BatchSize (see bulkwrite.Apply). Changes NetBox refuses are reported in
// ApplyResult.Errors and in the error, with what refers to them; the
// others are written. An error with no ApplyResult.Errors means NetBox
// could not be written to at all (after retries) and the remaining
// changes were not attempted.
func (c *Client) Write(ctx context.Context, r *reading, changes []plan.Change) (ApplyResult, error) {
	return c.apply(ctx, r, changes, false)
}

// WriteSaved is Write for a saved plan: each update and delete is sent
// alone (Config.Concurrency at once) with If-Match: W/"<Meta.Version>",
// the version the plan saw, so an object changed in NetBox since the plan
// answers 412 and is refused alone, with what refers to it; everything
// else of the plan is written.
func (c *Client) WriteSaved(ctx context.Context, r *reading, changes []plan.Change) (ApplyResult, error) {
	return c.apply(ctx, r, changes, true)
}

// Apply writes changes made without a plan (by hand, a test's), through
// a read of what they may name (sot.Prepare).
func (c *Client) Apply(ctx context.Context, changes []plan.Change) (ApplyResult, error) {
	return sot.Apply(ctx, sot.Dialect[int, *reading](c), c.Write, changes)
}

// ApplySaved is Apply with WriteSaved.
func (c *Client) ApplySaved(ctx context.Context, changes []plan.Change) (ApplyResult, error) {
	return sot.Apply(ctx, sot.Dialect[int, *reading](c), c.WriteSaved, changes)
}

func (c *Client) apply(ctx context.Context, r *reading, changes []plan.Change, saved bool) (ApplyResult, error) {
	a := &applier{c: c, r: r, t: &httpapi.Tally{}, saved: saved, versions: &versions{m: map[resource.Key]string{}},
		intents: &intents{held: map[intentKey]*intent{}}}
	res, err := bulkwrite.Apply(ctx, a, changes, bulkwrite.Options{BatchSize: c.cfg.BatchSize, Concurrency: c.cfg.Concurrency, Server: "netbox",
		Precondition: saved, Tally: a.t, Progress: c.progress, Log: c.log})
	a.intents.mu.Lock()
	a.releaseIntents(context.WithoutCancel(ctx), func(intentKey, *intent) bool { return true })
	a.intents.mu.Unlock()
	return res, err
}

// Item builds the request object of one change.
func (a *applier) Item(ch *plan.Change) (item, error) {
	if ch.Action == plan.Create {
		b, err := a.body(ch.Desired)
		return item{Change: ch, Body: b}, err
	}
	id, err := currentID(ch)
	if err != nil {
		return item{}, err
	}
	if ch.Action == plan.Delete {
		return item{Change: ch, ID: strconv.Itoa(id), Body: map[string]any{"id": id}}, nil
	}
	b, err := a.patchBody(ch, id)
	return item{Change: ch, ID: strconv.Itoa(id), Body: b}, err
}

// Interim builds the write of a change's interim values.
func (a *applier) Interim(ch *plan.Change) (item, error) {
	id, err := currentID(ch)
	if err != nil {
		return item{}, err
	}
	body := map[string]any{"id": id}
	for _, f := range ch.Interim {
		for _, k := range wireFields(ch.Key.Kind, f.Field) {
			body[k] = f.New
		}
	}
	return item{Change: ch, ID: strconv.Itoa(id), Body: body, Aux: true}, nil
}

// Learned remembers the ids of ipsync's own kinds that others refer to,
// and forgets those deleted or renumbered.
func (a *applier) Learned(ch *plan.Change, id string) {
	bulkwrite.Remember(ch, id, a.r.k.learnID, a.r.k.own.Forget)
}

func currentID(ch *plan.Change) (int, error) {
	if ch.Current == nil {
		return 0, fmt.Errorf("the change has no current object")
	}
	id, err := strconv.Atoi(ch.Current.Meta().ID)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("the current object has no netbox id (%q)", ch.Current.Meta().ID)
	}
	return id, nil
}
