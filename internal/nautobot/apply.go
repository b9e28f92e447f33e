package nautobot

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/google/uuid"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/parallel"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// applier is one Apply in progress.
type applier struct {
	c *Client
	t *httpapi.Tally

	mu      sync.Mutex // guards res, failed and parents.written: batches of a kind run at once
	res     *ApplyResult
	failed  map[resource.Key]bool
	parents *parents
}

// item is one object of a bulk write.
type item struct {
	ch   *plan.Change
	id   string
	body map[string]any
	// aux marks a write made for a change besides the change itself (a
	// prefix's location assignment, an interim value): its errors are
	// the change's, and it is not counted as an object.
	aux bool
	// locations are a prefix's locations to assign beyond the one its
	// create writes.
	locations []string
}

// Apply writes the changes in the order given, in bulk requests of
// BatchSize: within a run of non-delete changes (and within a run of
// deletes) changes are grouped by kind, parents first (children first
// for deletes), and a kind's updates and adopts go before its creates. Changes Nautobot refuses are reported in ApplyResult.Errors
// and in the error; the others are written. An error with no
// ApplyResult.Errors means Nautobot could not be written to at all
// (after retries) and the remaining changes were not attempted.
func (c *Client) Apply(ctx context.Context, changes []plan.Change) (res ApplyResult, err error) {
	res = ApplyResult{Counts: map[resource.Kind]map[plan.Action]int{}}
	a := &applier{c: c, t: &httpapi.Tally{}, res: &res, failed: map[resource.Key]bool{}}
	defer func() { res.Reads, res.Writes = int(a.t.Reads()), int(a.t.Writes()) }()
	var writes []*plan.Change
	for i := range changes {
		if changes[i].Action.Writes() {
			writes = append(writes, &changes[i])
		}
	}
	if len(writes) == 0 {
		return res, nil
	}
	if err := a.preflight(ctx, writes); err != nil {
		return res, err
	}
	a.parents = newParents(writes)
	if err := a.interim(ctx, writes); err != nil {
		return res, err
	}
	byKind(writes)
	for lo := 0; lo < len(writes); {
		hi := lo + 1
		for hi < len(writes) && writes[hi].Key.Kind == writes[lo].Key.Kind && isDelete(writes[hi].Action) == isDelete(writes[lo].Action) {
			hi++
		}
		if err := a.run(ctx, writes[lo:hi]); err != nil {
			return res, err
		}
		lo = hi
	}
	c.log.Info("applied", "objects", res.Written, "refused", len(res.Errors), "writes", a.t.Writes())
	return res, res.err()
}

func isDelete(a plan.Action) bool { return a == plan.Delete }

// byKind orders each run of writes, and each run of deletes, by kind:
// parents first for writes, children first for deletes. An object refers
// only to kinds of lower rank, so the order stays valid, and each kind
// of a run becomes one sequence of full batches.
func byKind(changes []*plan.Change) {
	for lo := 0; lo < len(changes); {
		hi := lo + 1
		for hi < len(changes) && isDelete(changes[hi].Action) == isDelete(changes[lo].Action) {
			hi++
		}
		del := isDelete(changes[lo].Action)
		slices.SortStableFunc(changes[lo:hi], func(a, b *plan.Change) int {
			if del {
				return b.Key.Kind.Rank() - a.Key.Kind.Rank()
			}
			return a.Key.Kind.Rank() - b.Key.Kind.Rank()
		})
		lo = hi
	}
}

// run writes a run of changes to one kind. Updates go before creates, so
// that a rename frees a name before a create takes it.
func (a *applier) run(ctx context.Context, run []*plan.Change) error {
	k := run[0].Key.Kind
	ep, ok := endpointOf(k)
	if !ok {
		for _, ch := range run {
			a.fail(ch, fmt.Sprintf("nautobot holds no %s objects", k))
		}
		return nil
	}
	var patch, post, del []item
	for _, ch := range run {
		if a.failedAlready(ch) {
			continue // its interim write failed, and was reported
		}
		if dep := a.failedDependency(ch); dep != "" {
			a.fail(ch, "not written: it refers to "+dep+", which was not written")
			continue
		}
		if dep := a.missingParent(ch); dep != "" {
			a.fail(ch, "not written: its parent "+dep+" was not written")
			continue
		}
		it, err := a.item(ch)
		if err != nil {
			a.fail(ch, err.Error())
			continue
		}
		switch ch.Action {
		case plan.Create:
			post = append(post, it)
		case plan.Update, plan.Adopt:
			patch = append(patch, it)
		case plan.Delete:
			del = append(del, it)
		}
	}
	for _, group := range []struct {
		method string
		items  []item
	}{{http.MethodPatch, patch}, {http.MethodPost, post}, {http.MethodDelete, del}} {
		var tasks []func(context.Context) error
		for lo := 0; lo < len(group.items); lo += a.c.cfg.BatchSize {
			batch := group.items[lo:min(lo+a.c.cfg.BatchSize, len(group.items))]
			tasks = append(tasks, func(ctx context.Context) error {
				done, err := a.send(ctx, ep, group.method, batch)
				if err != nil || k != resource.KindPrefix || group.method == http.MethodDelete {
					return err
				}
				return a.syncLocations(ctx, group.method, done)
			})
		}
		if err := parallel.Run(ctx, a.writers(k), tasks); err != nil {
			return err
		}
	}
	return nil
}

// writers is how many bulk writes of kind k may run at once. Nautobot
// spends most of a bulk write in Python, one worker per request, so
// batches sent together finish several times sooner than one after the
// other. Only IP addresses and VLANs go together: neither refers to
// another object of its kind, while a prefix's create or delete
// re-parents the prefixes around it, which concurrent batches would race.
func (a *applier) writers(k resource.Kind) int {
	if k == resource.KindIPAddress || k == resource.KindVLAN {
		return a.c.cfg.Concurrency
	}
	return 1
}

// item builds the request object of one change.
func (a *applier) item(ch *plan.Change) (item, error) {
	switch ch.Action {
	case plan.Create:
		id := uuid.NewString()
		b, err := a.c.body(ch.Desired)
		if err != nil {
			return item{}, err
		}
		b["id"] = id
		it := item{ch: ch, id: id, body: b}
		if p, ok := ch.Desired.(*resource.Prefix); ok {
			if locs := resource.NormalizeSet(append([]string(nil), p.Locations...)); len(locs) > 1 {
				it.locations = locs[1:]
			}
		}
		return it, nil
	case plan.Update, plan.Adopt:
		id := ch.Current.Meta().ID
		if id == "" {
			return item{}, fmt.Errorf("the current object has no nautobot id")
		}
		b, err := a.c.patchBody(ch, id)
		return item{ch: ch, id: id, body: b}, err
	default:
		id := ch.Current.Meta().ID
		if id == "" {
			return item{}, fmt.Errorf("the current object has no nautobot id")
		}
		return item{ch: ch, id: id, body: map[string]any{"id": id}}, nil
	}
}

// failedDependency names a refused object the change refers to.
func (a *applier) failedDependency(ch *plan.Change) string {
	if ch.Desired == nil {
		return ""
	}
	for _, r := range ch.Desired.References() {
		k := resource.Key{Kind: r.Kind, Name: r.Name}
		a.mu.Lock()
		failed := a.failed[k]
		a.mu.Unlock()
		if failed {
			return k.String()
		}
	}
	return ""
}

func (a *applier) failedAlready(ch *plan.Change) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.failed[ch.Key]
}

func (a *applier) missingParent(ch *plan.Change) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.parents.missing(ch)
}

func (a *applier) fail(ch *plan.Change, msg string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.failed[ch.Key] = true
	a.res.Errors = append(a.res.Errors, &ObjectError{Key: ch.Key, Action: ch.Action, Message: msg})
}

// preflight checks, before the first write, that the marker exists where
// it will be written: Nautobot silently drops custom field values it has
// no definition for, which would leave objects without an owner.
func (a *applier) preflight(ctx context.Context, writes []*plan.Change) error {
	marked := map[string]bool{} // content types that get the marker
	vni := false
	for _, ch := range writes {
		if ch.Action == plan.Delete {
			continue
		}
		if ep, ok := endpointOf(ch.Key.Kind); ok {
			marked[ep.ct] = true
		}
		if p, ok := ch.Desired.(*resource.Prefix); ok && p.VNI != 0 {
			vni = true
		}
	}
	if len(marked) == 0 {
		return nil
	}
	l, err := a.c.fetchLookups(ctx, a.t)
	if err != nil {
		return fmt.Errorf("apply: read lookups: %w", err)
	}
	var tag *named
	for _, t := range l.refs[refTag] {
		if t.Name == a.c.cfg.Tag {
			tag = &t
		}
	}
	if tag == nil {
		return fmt.Errorf("apply: tag %q does not exist in nautobot; run ipsync bootstrap first", a.c.cfg.Tag)
	}
	// Listed whole and matched by key: there is no key filter (strict
	// filtering answers 400), and custom fields are few.
	fields, err := sweep[wireCustomField](ctx, a.c, pathCustomFields, nil, a.t)
	if err != nil {
		return fmt.Errorf("apply: read custom fields: %w", err)
	}
	need := map[string][]string{a.c.cfg.OwnerField: {}}
	if vni {
		need[a.c.cfg.VNIField] = []string{"ipam.prefix"}
	}
	for ct := range marked {
		need[a.c.cfg.OwnerField] = append(need[a.c.cfg.OwnerField], ct)
		if !slices.Contains(tag.ContentTypes, ct) {
			return fmt.Errorf("apply: tag %q may not be used on %s; run ipsync bootstrap first", a.c.cfg.Tag, ct)
		}
	}
	for key, cts := range need {
		i := slices.IndexFunc(fields, func(f wireCustomField) bool { return f.Key == key })
		if i < 0 {
			return fmt.Errorf("apply: custom field %q does not exist in nautobot; run ipsync bootstrap first", key)
		}
		for _, ct := range cts {
			if !slices.Contains(fields[i].ContentTypes, ct) {
				return fmt.Errorf("apply: custom field %q is not defined for %s; run ipsync bootstrap first", key, ct)
			}
		}
	}
	return nil
}
