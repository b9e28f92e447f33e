package netbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/ipsync/ipsync/internal/bulkwrite"
	"github.com/ipsync/ipsync/internal/lease"
	"github.com/ipsync/ipsync/internal/resource"
)

// A create NetBox would take twice (racy) is sent under an intent: a lease
// (package lease, a tag "ipsync-lease:writing:<kind>:<owner>") that this
// apply holds from before its first such create of the kind until its
// creates of the kind are answered, or, if one is not, until
// RequestDeadline after the last was sent. One per kind: a rerun waits
// only for the kind a killed run was writing. A run killed with such a
// create on its way leaves the intent behind, and a rerun that reads
// NetBox before that create commits would otherwise plan and send it
// again. The rerun waits instead, until the
// objects appear or the intent expires, when NetBox has finished or
// abandoned every request sent under it; what appeared is written as an
// update of that object, as a refused create's holder is (bulkwrite's
// Claimer).

// intentMargin is how much longer than RequestDeadline an intent lasts
// from its renewal. It is renewed before a create is sent once less than
// RequestDeadline is left, so every create sent under it is over before it
// expires.
const intentMargin = 30 * time.Second

// intents are the intents of one apply, by owner and kind.
type intents struct {
	// mu makes one batch at a time wait for, take and renew intents:
	// batches of addresses are written several at once.
	mu   sync.Mutex
	held map[intentKey]*intent
}

type intentKey struct {
	owner resource.Owner
	kind  resource.Kind
}

type intent struct {
	l     *lease.Lease
	until time.Time // expiry while this apply holds it
	// free: the preflight found no intent of the owner, so the first
	// take needs no read.
	free bool
	// sending counts the batches sent under it that have no answer yet.
	sending int
}

// of is the intent of owner's creates of kind k, made on first use.
func (in *intents) of(a *applier, owner resource.Owner, k resource.Kind) *intent {
	key := intentKey{owner, k}
	i := in.held[key]
	if i == nil {
		i = &intent{l: lease.New(a.c, lease.NetBoxTags, lease.Config{Name: "writing:" + string(k) + ":" + string(owner), Holder: a.c.holder,
			TTL: a.c.cfg.RequestDeadline + intentMargin, Clock: a.c.clock})}
		in.held[key] = i
	}
	return i
}

// holderName names this client in the intents it takes, for the rerun's
// log: host, process and a nonce, since one process may run two clients.
func holderName() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("ipsync on %s pid %d (%s)", host, os.Getpid(), hex.EncodeToString(b))
}

// intend readies the creates of items for sending and returns those still
// to create: for each owner with a racy create, it takes (or renews) the
// owner's intent, waiting first for any other run's intent to be settled.
// sent is to be called once the creates returned have their answers.
func (a *applier) intend(ctx context.Context, ep endpoint, items []item, rep *report) ([]item, func(), error) {
	racy := map[resource.Owner][]item{}
	var out []item
	for _, it := range items {
		if a.racy(it) {
			o := it.Change.Desired.Meta().Owner
			racy[o] = append(racy[o], it)
		} else {
			out = append(out, it)
		}
	}
	if len(racy) == 0 {
		return items, func() {}, nil
	}
	a.intents.mu.Lock()
	defer a.intents.mu.Unlock()
	// The intents of kinds written before this one are done with once no
	// batch under them waits for an answer; this kind's is kept for its
	// next batches.
	kind := items[0].Change.Key.Kind
	a.releaseIntents(ctx, func(k intentKey, in *intent) bool { return k.kind != kind && in.sending == 0 })
	var sending []*intent
	for _, o := range slices.Sorted(maps.Keys(racy)) {
		rest, err := a.intendOwner(ctx, ep, o, racy[o], rep)
		if err != nil {
			for _, in := range sending {
				in.sending--
			}
			return nil, nil, err
		}
		if len(rest) > 0 {
			in := a.intents.of(a, o, rest[0].Change.Key.Kind)
			in.sending++
			sending = append(sending, in)
		}
		out = append(out, rest...)
	}
	return out, func() {
		a.intents.mu.Lock()
		defer a.intents.mu.Unlock()
		for _, in := range sending {
			in.sending--
		}
	}, nil
}

func (a *applier) intendOwner(ctx context.Context, ep endpoint, owner resource.Owner, items []item, rep *report) ([]item, error) {
	in := a.intents.of(a, owner, items[0].Change.Key.Kind)
	for len(items) > 0 {
		now := a.c.clock.Now()
		if in.until.Sub(now) > a.c.cfg.RequestDeadline {
			return items, nil
		}
		take := in.l.Acquire
		if in.free {
			in.free, take = false, in.l.Take
		}
		ok, err := take(ctx)
		if err != nil {
			return nil, fmt.Errorf("record the creates on their way for %s: %w", owner, err)
		}
		if ok {
			in.until = now.Add(a.c.cfg.RequestDeadline + intentMargin)
			return items, nil
		}
		holder, until, err := in.l.Expiry(ctx)
		if err != nil {
			return nil, fmt.Errorf("read who has creates on their way for %s: %w", owner, err)
		}
		if holder == "" {
			continue // expired or released just now: take it
		}
		a.c.log.Warn("another run of this owner may still have creates on their way to netbox: waiting for them, or until its record of them expires",
			"owner", owner, "holder", holder, "until", until, "path", ep.path)
		var found map[resource.Key]int
		err = bulkwrite.AwaitOutcome(ctx, a.c.clock, until, func(ctx context.Context) (bool, error) {
			var err error
			found, err = a.lostCreates(ctx, ep, items)
			return len(found) < len(items), err
		})
		if err != nil {
			return nil, err
		}
		if items, err = a.takeOver(ctx, ep, items, found, rep); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// takeOver writes the creates of items whose objects another run of their
// owner wrote meanwhile (found: their ids) as updates of those objects,
// and returns the others. A saved plan's are refused instead: it was made
// before those objects existed, and a new plan shows them.
func (a *applier) takeOver(ctx context.Context, ep endpoint, items []item, found map[resource.Key]int, rep *report) ([]item, error) {
	var rest, updates []item
	for _, it := range items {
		id, ok := found[it.Change.Key]
		switch {
		case !ok:
			rest = append(rest, it)
		case a.saved:
			rep.Failed(it, "an earlier run of this owner wrote it after this plan was made (its create was still on its way): plan again")
		default:
			updates = append(updates, a.AsUpdate(it, strconv.Itoa(id)))
		}
	}
	if len(updates) > 0 {
		a.c.log.Warn("creates found their objects already written by an earlier run of their owner (its create was on its way when this plan read netbox): updated them to the plan instead",
			"path", ep.path, "objects", len(updates))
		if err := a.send(ctx, ep, http.MethodPatch, updates, rep); err != nil {
			return nil, err
		}
	}
	return rest, nil
}

// releaseIntents gives up the intents the apply holds that done says it
// is done with (the caller holds the lock), so that a rerun need not wait
// for them. Nothing is released after a write went without an answer: its
// creates may still be on their way.
func (a *applier) releaseIntents(ctx context.Context, done func(intentKey, *intent) bool) {
	if a.unanswered.Load() {
		return
	}
	for key, in := range a.intents.held {
		if in.until.IsZero() || !done(key, in) {
			continue
		}
		if err := in.l.Release(ctx); err != nil {
			a.c.log.Warn("could not remove the record of creates on their way; a rerun of this owner may wait for it to expire",
				"owner", key.owner, "kind", key.kind, "until", in.until, "err", err)
		}
		in.until = time.Time{}
	}
}
