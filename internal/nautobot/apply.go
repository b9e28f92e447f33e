package nautobot

import (
	"context"
	"fmt"
	"net/url"

	"github.com/google/uuid"

	"github.com/ipsync/ipsync/internal/bulkwrite"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/ownership"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/sot"
)

// ApplyResult is what an Apply did.
type ApplyResult = bulkwrite.Result

// ObjectError is one change that was not written, with why.
type ObjectError = bulkwrite.ObjectError

// item is one object of a bulk write: its body is the JSON object sent.
type item = bulkwrite.Item[map[string]any]

type report = bulkwrite.Report[map[string]any]

// applier is one Write in progress: the engine's Writer for Nautobot.
type applier struct {
	c *Client
	r *reading // what the writes name objects by
	t *httpapi.Tally
}

// Write writes the changes in the order given, naming what they refer
// to as r knows it,, in bulk requests of
// BatchSize: within a run of non-delete changes (and within a run of
// deletes) changes are grouped by kind, parents first (children first
// for deletes), and a kind's updates and adopts go before its creates.
// Changes Nautobot refuses are reported in ApplyResult.Errors and in the
// error; the others are written. An error with no ApplyResult.Errors
// means Nautobot could not be written to at all (after retries) and the
// remaining changes were not attempted.
func (c *Client) Write(ctx context.Context, r *reading, changes []plan.Change) (ApplyResult, error) {
	a := &applier{c: c, r: r, t: &httpapi.Tally{}}
	return bulkwrite.Apply(ctx, a, changes, bulkwrite.Options{
		BatchSize: c.cfg.BatchSize, Concurrency: c.cfg.Concurrency, Server: "nautobot", Tally: a.t, Progress: c.progress, Log: c.log})
}

// Write sends one batch as one bulk request (split when Nautobot refuses
// it; see send), then gives written prefixes their further locations.
func (a *applier) Write(ctx context.Context, b bulkwrite.Batch[map[string]any], rep *report) error {
	ep, ok := endpointOf(b.Kind)
	if !ok {
		return fmt.Errorf("apply: nautobot holds no %s objects", b.Kind)
	}
	method := b.Op.Method()
	done, err := a.send(ctx, rep, ep, method, b.Items)
	if err != nil || b.Kind != resource.KindPrefix || b.Op == bulkwrite.Delete || b.Interim {
		return err
	}
	return a.syncLocations(ctx, rep, method, done)
}

// Item builds the request object of one change.
func (a *applier) Item(ch *plan.Change) (item, error) {
	if _, ok := endpointOf(ch.Key.Kind); !ok {
		return item{}, fmt.Errorf("nautobot holds no %s objects", ch.Key.Kind)
	}
	switch ch.Action {
	case plan.Create:
		id := uuid.NewString()
		b, err := a.body(ch.Desired)
		if err != nil {
			return item{}, err
		}
		b["id"] = id
		return item{Change: ch, ID: id, Body: b}, nil
	case plan.Update, plan.Adopt:
		id := ch.Current.Meta().ID
		if id == "" {
			return item{}, fmt.Errorf("the current object has no nautobot id")
		}
		b, err := a.patchBody(ch, id)
		return item{Change: ch, ID: id, Body: b}, err
	default:
		id := ch.Current.Meta().ID
		if id == "" {
			return item{}, fmt.Errorf("the current object has no nautobot id")
		}
		return item{Change: ch, ID: id, Body: map[string]any{"id": id}}, nil
	}
}

// Interim builds the write of a change's interim values.
func (a *applier) Interim(ch *plan.Change) (item, error) {
	if _, ok := endpointOf(ch.Key.Kind); !ok {
		return item{}, fmt.Errorf("nautobot holds no %s objects", ch.Key.Kind)
	}
	id := ch.Current.Meta().ID
	if id == "" {
		return item{}, fmt.Errorf("the current object has no nautobot id")
	}
	body := map[string]any{"id": id}
	for _, f := range ch.Interim {
		keys, err := wireFields(ch.Key.Kind, f.Field)
		if err != nil {
			return item{}, err
		}
		for _, k := range keys {
			body[k] = f.New
		}
	}
	return item{Change: ch, ID: id, Body: body, Aux: true}, nil
}

// Learned remembers the ids of ipsync's own kinds that others refer to,
// and forgets those deleted or renumbered.
func (a *applier) Learned(ch *plan.Change, id string) {
	bulkwrite.Remember(ch, id, a.r.k.own.Learn, a.r.k.own.Forget)
}

// Preflight checks, before the first write, that the marker exists where
// it will be written (see ownership.Marker.Check), reading the marker tag
// as it is now. The lookups the writes name are resolved with those the
// plan's read learned, which the change log keeps up to date between
// whole reads.
func (a *applier) Preflight(ctx context.Context, writes []*plan.Change) error {
	marked, fields := sot.Marked(writes, contentType, a.c.cfg.VNIField, "ipam.prefix")
	if len(marked) == 0 {
		return nil
	}
	tags, err := sweep[named](ctx, a.c, pathTags, url.Values{"name": {a.c.cfg.Tag}}, a.t)
	if err != nil {
		return fmt.Errorf("apply: read the marker tag: %w", err)
	}
	var found ownership.Found
	for _, t := range tags {
		if t.Name == a.c.cfg.Tag {
			found.Tag, found.TagTypes = true, t.ContentTypes
			a.r.k.learnRef(refTag, t)
		}
	}
	if found.Tag {
		// Listed whole and matched by key: there is no key filter (strict
		// filtering answers 400), and custom fields are few.
		cfs, err := sweep[wireCustomField](ctx, a.c, pathCustomFields, nil, a.t)
		if err != nil {
			return fmt.Errorf("apply: read custom fields: %w", err)
		}
		found.Fields = make(map[string][]string, len(cfs))
		found.FilterLogic = make(map[string]string, len(cfs))
		for _, f := range cfs {
			found.Fields[f.Key] = f.ContentTypes
			if f.FilterLogic != nil {
				found.FilterLogic[f.Key] = f.FilterLogic.Value
			}
		}
	}
	if err := a.c.ownerMarker().Check("nautobot", found, marked, fields); err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	return nil
}

// contentType is the content type of kind k's objects.
func contentType(k resource.Kind) (string, bool) {
	ep, ok := endpointOf(k)
	return ep.ct, ok
}
