package bulkwrite

import (
	"context"
	"net/http"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// Op is what a batch does to its objects.
type Op int

const (
	// Update changes existing objects: updates, adopts, interim values.
	Update Op = iota
	// Create makes new objects.
	Create
	// Delete removes objects.
	Delete
)

func (o Op) String() string {
	switch o {
	case Update:
		return "update"
	case Create:
		return "create"
	case Delete:
		return "delete"
	}
	return "unknown"
}

// Method is the HTTP method of a bulk write of op.
func (o Op) Method() string {
	switch o {
	case Create:
		return http.MethodPost
	case Delete:
		return http.MethodDelete
	}
	return http.MethodPatch
}

// opOf is the op that writes action a.
func opOf(a plan.Action) Op {
	switch a {
	case plan.Create:
		return Create
	case plan.Delete:
		return Delete
	}
	return Update
}

// Item is one object of a batch; B is the adapter's request object.
type Item[B any] struct {
	Change *plan.Change
	// ID is the object's id on the server: the current one for an update
	// or delete; for a create the one the adapter chose, or "" until the
	// server assigns one, which the adapter sets before reporting the
	// item done.
	ID   string
	Body B
	// Aux marks a write made for a change besides the change itself (an
	// interim value, a Nautobot prefix's location assignment): its
	// errors are the change's, and it is not counted as an object.
	Aux bool
}

// Batch is items of one kind, all written by one op.
type Batch[B any] struct {
	Kind  resource.Kind
	Op    Op
	Items []Item[B]
	// Interim marks the batches of interim values, written before
	// anything else.
	Interim bool
}

// Writer is what an adapter gives the engine: its wire format.
type Writer[B any] interface {
	// Item builds the request object of one change. An error refuses
	// that change alone; it is reported with the error's message.
	Item(ch *plan.Change) (Item[B], error)
	// Interim builds the write of ch's interim values (ch.Interim), sent
	// in an Update batch before every other write. It is an Aux item.
	Interim(ch *plan.Change) (Item[B], error)
	// Write sends one batch and tells rep, as it learns them, which items
	// were written and which were refused. An error means the server
	// could not be written to (after retries): the Apply stops there.
	Write(ctx context.Context, b Batch[B], rep *Report[B]) error
	// Owners reads the objects ids of kind k as they are now and gives
	// each one's owner by its marker ("" for none); an id missing from
	// the map no longer exists. The engine asks before every batch that
	// changes or deletes existing objects (see confirm.go).
	Owners(ctx context.Context, k resource.Kind, ids []string) (map[string]resource.Owner, error)
	// Preflight checks, before the first write, that the server is ready
	// for the writes (the owner marker exists for the kinds written). An
	// error stops the Apply unwritten.
	Preflight(ctx context.Context, writes []*plan.Change) error
	// Learned is called for each change written, with the id the item
	// was reported done with (see Remember).
	Learned(ch *plan.Change, id string)
	Claimer[B]
}
