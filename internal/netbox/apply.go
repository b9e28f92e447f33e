package netbox

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/parallel"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// applier is one Apply in progress.
type applier struct {
	c *Client
	t *httpapi.Tally
	// saved sends updates and deletes one object per request with
	// If-Match (see ApplySaved).
	saved bool

	mu     sync.Mutex // guards res, failed and versions: batches of a kind run at once
	res    *ApplyResult
	failed map[resource.Key]bool
	// versions are the versions objects have after an interim write,
	// for the If-Match of their own write.
	versions map[resource.Key]string
}

// item is one object of a write.
type item struct {
	ch   *plan.Change
	id   int // NetBox's id; 0 for a create
	body map[string]any
	// aux marks a write made for a change besides the change itself (an
	// interim value): its errors are the change's, and it is not counted
	// as an object.
	aux bool
}

// Apply writes the changes in the order given, in bulk requests of
// BatchSize: within a run of non-delete changes (and within a run of
// deletes) changes are grouped by kind, parents first (children first for
// deletes), and a kind's updates and adopts go before its creates.
// Changes NetBox refuses are reported in ApplyResult.Errors and in the
// error, with what refers to them; the others are written. An error with
// no ApplyResult.Errors means NetBox could not be written to at all
// (after retries) and the remaining changes were not attempted.
func (c *Client) Apply(ctx context.Context, changes []plan.Change) (ApplyResult, error) {
	return c.apply(ctx, changes, false)
}

// ApplySaved is Apply for a saved plan: each update and delete is sent
// alone (Config.Concurrency at once) with If-Match: W/"<Meta.Version>",
// the version the plan saw, so an object changed in NetBox since the plan
// answers 412 and is refused alone, with what refers to it; everything
// else of the plan is written.
func (c *Client) ApplySaved(ctx context.Context, changes []plan.Change) (ApplyResult, error) {
	return c.apply(ctx, changes, true)
}

func (c *Client) apply(ctx context.Context, changes []plan.Change, saved bool) (res ApplyResult, err error) {
	res = ApplyResult{Counts: map[resource.Kind]map[plan.Action]int{}}
	a := &applier{c: c, t: &httpapi.Tally{}, saved: saved, res: &res, failed: map[resource.Key]bool{}, versions: map[resource.Key]string{}}
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
// parents first for writes, children first for deletes.
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
			a.fail(ch, fmt.Sprintf("netbox holds no %s objects", k))
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
		if a.saved && group.method != http.MethodPost {
			for _, it := range group.items {
				tasks = append(tasks, func(ctx context.Context) error { return a.sendOne(ctx, ep, group.method, it) })
			}
		} else {
			for lo := 0; lo < len(group.items); lo += a.c.cfg.BatchSize {
				batch := group.items[lo:min(lo+a.c.cfg.BatchSize, len(group.items))]
				tasks = append(tasks, func(ctx context.Context) error { return a.send(ctx, ep, group.method, batch) })
			}
		}
		if err := parallel.Run(ctx, a.writers(k, len(tasks) > 0 && a.saved && group.method != http.MethodPost), tasks); err != nil {
			return err
		}
	}
	return nil
}

// writers is how many writes of kind k may run at once. Single-object
// writes of a saved plan always go Concurrency at once. Of bulk writes,
// only IP addresses and VLANs go together: neither refers to another
// object of its kind, while a prefix's write re-parents the prefixes
// around it, which concurrent batches would race for.
func (a *applier) writers(k resource.Kind, single bool) int {
	if single || k == resource.KindIPAddress || k == resource.KindVLAN {
		return a.c.cfg.Concurrency
	}
	return 1
}

// item builds the request object of one change.
func (a *applier) item(ch *plan.Change) (item, error) {
	if ch.Action == plan.Create {
		b, err := a.c.body(ch.Desired)
		return item{ch: ch, body: b}, err
	}
	id, err := currentID(ch)
	if err != nil {
		return item{}, err
	}
	if ch.Action == plan.Delete {
		return item{ch: ch, id: id, body: map[string]any{"id": id}}, nil
	}
	b, err := a.c.patchBody(ch, id)
	return item{ch: ch, id: id, body: b}, err
}

func currentID(ch *plan.Change) (int, error) {
	var id int
	if ch.Current == nil {
		return 0, fmt.Errorf("the change has no current object")
	}
	if _, err := fmt.Sscan(ch.Current.Meta().ID, &id); err != nil || id <= 0 {
		return 0, fmt.Errorf("the current object has no netbox id (%q)", ch.Current.Meta().ID)
	}
	return id, nil
}

// failedDependency names a refused object the change refers to.
func (a *applier) failedDependency(ch *plan.Change) string {
	if ch.Desired == nil {
		return ""
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range ch.Desired.References() {
		if k := (resource.Key{Kind: r.Kind, Name: r.Name}); a.failed[k] {
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

func (a *applier) fail(ch *plan.Change, msg string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.failed[ch.Key] = true
	a.res.Errors = append(a.res.Errors, &ObjectError{Key: ch.Key, Action: ch.Action, Message: msg})
}

// succeeded counts written objects and remembers or forgets the ids of
// the kinds other objects refer to.
func (a *applier) succeeded(items []item) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, it := range items {
		if it.aux {
			continue
		}
		a.res.count(it.ch.Key.Kind, it.ch.Action, 1)
		a.c.progress.Add("write "+string(it.ch.Key.Kind), 1)
		switch k := it.ch.Key.Kind; {
		case k != resource.KindNamespace && k != resource.KindVLANGroup && k != resource.KindVLAN:
		case it.ch.Action == plan.Delete:
			a.c.forget(it.ch.Key)
		default:
			if cur := it.ch.Current; cur != nil && cur.Key() != it.ch.Key {
				a.c.forget(cur.Key()) // renumbered: the id answers to the new key only
			}
			a.c.learn(it.ch.Key, it.id)
		}
	}
}
