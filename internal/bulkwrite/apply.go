package bulkwrite

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/parallel"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/plural"
	"github.com/ipsync/ipsync/internal/resource"
)

// Options are one Apply's settings.
type Options struct {
	// BatchSize is how many objects go in one request. 1 sends each
	// object alone, as a write that must carry its own precondition
	// (If-Match) does.
	BatchSize int
	// Server names the server in the error summing up refused changes:
	// "nautobot refused 2 change(s)".
	Server string
	// Precondition says each update and delete carries its own
	// precondition (NetBox's If-Match on a saved plan's writes), which the
	// server checks under a row lock: the engine reads no owners before
	// them (see confirm.go).
	Precondition bool
	// Concurrency is how many batches of IP addresses or VLANs are sent
	// at once; other kinds go one batch at a time.
	Concurrency int
	// Tally, when set, counts the Apply's requests into its Result.
	Tally    *httpapi.Tally
	Progress Progress
	Log      *slog.Logger
}

// Progress learns of each object written: Add("write vlan", 1).
type Progress interface {
	Add(label string, n int)
}

// run is one Apply in progress.
type run[B any] struct {
	w   Writer[B]
	opt Options

	mu      sync.Mutex // guards res, failed, parents.written and unsent: batches of a kind run at once
	res     *Result
	failed  map[resource.Key]bool
	parents *parents
	unsent  int // changes left unsent after a stop (WithStop)
}

// Apply writes the changes that write, in the order given, with w:
// within a run of non-delete changes (and within a run of deletes)
// changes are grouped by kind, parents first (children first for
// deletes), and a kind's updates and adopts go before its creates.
// Interim values are written before all of them. Changes refused are in
// Result.Errors and in the error; the others are written. An error with
// no Result.Errors means the server could not be written to at all
// (after retries) and the remaining changes were not attempted.
func Apply[B any](ctx context.Context, w Writer[B], changes []plan.Change, opt Options) (res Result, err error) {
	if opt.BatchSize < 1 {
		opt.BatchSize = 1
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	res = Result{Counts: map[resource.Kind]map[plan.Action]int{}}
	defer func() {
		if opt.Tally != nil {
			res.Reads, res.Writes = int(opt.Tally.Reads()), int(opt.Tally.Writes())
		}
	}()
	var writes []*plan.Change
	for i := range changes {
		if changes[i].Action.Writes() {
			writes = append(writes, &changes[i])
		}
	}
	if len(writes) == 0 {
		return res, nil
	}
	if err := w.Preflight(ctx, writes); err != nil {
		return res, err
	}
	r := &run[B]{w: w, opt: opt, res: &res, failed: map[resource.Key]bool{}, parents: newParents(writes)}
	if err := r.interim(ctx, writes); err != nil {
		return res, err
	}
	byKind(writes)
	for lo := 0; lo < len(writes); {
		hi := lo + 1
		for hi < len(writes) && writes[hi].Key.Kind == writes[lo].Key.Kind && isDelete(writes[hi].Action) == isDelete(writes[lo].Action) {
			hi++
		}
		if stopped(ctx) {
			r.unsent += len(writes) - lo
			break
		}
		if err := r.kind(ctx, writes[lo:hi]); err != nil {
			return res, err
		}
		lo = hi
	}
	if r.unsent > 0 {
		opt.Log.Info("stopped", "objects", res.Written, "refused", len(res.Errors), "unsent", r.unsent)
		return res, fmt.Errorf("%w (%s not sent)", ErrStopped, plural.Of(r.unsent, "change"))
	}
	var sent int64
	if opt.Tally != nil {
		sent = opt.Tally.Writes()
	}
	// Objects written, and the requests that wrote them (batches): not the
	// same number, and a log reader must not take one for the other.
	opt.Log.Info("applied", "objects", res.Written, "refused", len(res.Errors), "write_requests", sent)
	return res, res.err(opt.Server)
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

// kind writes a run of changes to one kind. Updates go before creates,
// so that a rename frees a name before a create takes it.
func (r *run[B]) kind(ctx context.Context, changes []*plan.Change) error {
	k := changes[0].Key.Kind
	var ops [3][]Item[B]
	for _, ch := range changes {
		if r.failedAlready(ch) {
			continue // its interim write failed, and was reported
		}
		if dep, ok := r.failedDependency(ch); ok {
			r.failAfter(ch, dep, "not written: it refers to "+dep.String()+", which was not written")
			continue
		}
		if dep, ok := r.missingParent(ch); ok {
			r.failAfter(ch, dep, "not written: its parent "+dep.String()+" was not written")
			continue
		}
		it, err := r.w.Item(ch)
		if err != nil {
			r.fail(ch, err.Error())
			continue
		}
		op := opOf(ch.Action)
		ops[op] = append(ops[op], it)
	}
	for _, op := range []Op{Update, Create, Delete} {
		if err := r.batches(ctx, Batch[B]{Kind: k, Op: op, Items: ops[op]}); err != nil {
			return err
		}
	}
	return nil
}

// batches cuts b into batches of BatchSize and writes them, as many at
// once as the Writer allows for the kind.
func (r *run[B]) batches(ctx context.Context, b Batch[B]) error {
	var tasks []func(context.Context) error
	for lo := 0; lo < len(b.Items); lo += r.opt.BatchSize {
		part := b
		part.Items = b.Items[lo:min(lo+r.opt.BatchSize, len(b.Items))]
		tasks = append(tasks, func(ctx context.Context) error {
			if stopped(ctx) {
				r.mu.Lock()
				r.unsent += len(part.Items)
				r.mu.Unlock()
				return nil
			}
			rep := &Report[B]{r: r}
			if part.Op == Create {
				rep.held = &held[B]{}
			}
			part, err := r.confirm(ctx, part, rep)
			if err != nil || len(part.Items) == 0 {
				return err
			}
			if part, err = r.preclaim(ctx, part); err != nil || len(part.Items) == 0 {
				return err
			}
			if err := r.w.Write(ctx, part, rep); err != nil {
				r.release(rep)
				return err
			}
			return r.claim(ctx, b.Kind, rep.held)
		})
	}
	if len(tasks) == 0 {
		return nil
	}
	return parallel.Run(ctx, r.writers(b.Kind), tasks)
}

// release reports the creates rep held as refused, when the Apply stops
// before their holders can be read.
func (r *run[B]) release(rep *Report[B]) {
	if rep.held == nil {
		return
	}
	for _, f := range rep.held.list {
		r.fail(f.it.Change, f.msg)
	}
}

// writers is how many batches of kind k may run at once. A server
// spends most of a bulk write in Python, one worker per request, so
// batches sent together finish several times sooner than one after the
// other. Only IP addresses and VLANs go together: neither refers to
// another object of its kind, while a prefix's create or delete
// re-parents the prefixes around it, which concurrent batches would race.
func (r *run[B]) writers(k resource.Kind) int {
	if k == resource.KindIPAddress || k == resource.KindVLAN {
		return max(1, r.opt.Concurrency)
	}
	return 1
}

// failedDependency is a refused object the change refers to.
func (r *run[B]) failedDependency(ch *plan.Change) (resource.Key, bool) {
	if ch.Desired == nil {
		return resource.Key{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ref := range ch.Desired.References() {
		if k := (resource.Key{Kind: ref.Kind, Name: ref.Name}); r.failed[k] {
			return k, true
		}
	}
	return resource.Key{}, false
}

func (r *run[B]) failedAlready(ch *plan.Change) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed[ch.Key]
}

func (r *run[B]) missingParent(ch *plan.Change) (resource.Key, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.parents.missing(ch)
}

func (r *run[B]) fail(ch *plan.Change, msg string) { r.failAfter(ch, resource.Key{}, msg) }

// failAfter refuses ch, which was not sent because after was refused.
func (r *run[B]) failAfter(ch *plan.Change, after resource.Key, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed[ch.Key] = true
	r.res.Errors = append(r.res.Errors, &ObjectError{Key: ch.Key, Action: ch.Action, Message: msg, After: after})
}
