package sot

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/ipsync/ipsync/internal/bulkwrite"
	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// Dialect is what the engine needs of one server's client. R is the
// dialect's read: what a read learns (lookups, the ids of the objects
// writes refer to) lives in it, not in the client, and a write is given
// the read its plan was made on.
type Dialect[ID cmp.Ordered, R Reader[ID]] interface {
	// Server names the server in messages: "Nautobot", "NetBox".
	Server() string
	// Begin starts a read of sc's kinds: it reads the lookups the
	// objects will be named with.
	Begin(ctx context.Context, sc scope.Scope, kinds []resource.Kind) (R, error)
	// Restore is the Reader a Save returned, with the objects of the
	// view, as if it had just read them, without reading anything.
	Restore(sc scope.Scope, kinds []resource.Kind, saved []byte, objs []resource.Object) (R, error)
	// Check reports a desired object this server cannot hold, as r
	// found the server.
	Check(r R, o resource.Object) error
	// Write writes changes, naming what they refer to as r knows it, and
	// teaches r the ids of what it creates.
	Write(ctx context.Context, r R, changes []plan.Change) (bulkwrite.Result, error)
	// AsStored is o as this server stores it.
	AsStored(o resource.Object) resource.Object
	// API is the client's request loop.
	API() *httpapi.Client
	// Namespace is what the server calls a namespace, in messages.
	Namespace() string
}

// List reads every object of sc. It fails rather than return part of
// what the server holds.
func List[ID cmp.Ordered, R Reader[ID]](ctx context.Context, d Dialect[ID, R], sc scope.Scope) ([]resource.Object, R, error) {
	var none R
	kinds, err := KindsOf(sc, strings.ToLower(d.Server()))
	if err != nil {
		return nil, none, err
	}
	r, err := d.Begin(ctx, sc, kinds)
	if err != nil {
		return nil, none, fmt.Errorf("read %s: %w", strings.ToLower(d.Server()), err)
	}
	objs, err := read(ctx, r)
	if err != nil {
		return nil, none, fmt.Errorf("read %s: %w", strings.ToLower(d.Server()), err)
	}
	return objs, r, nil
}

// Prepare is the read a write made without a plan needs (changes built
// by hand, a test's): the lookups, and the namespaces and VLAN groups,
// whose ids the writes name.
func Prepare[ID cmp.Ordered, R Reader[ID]](ctx context.Context, d Dialect[ID, R]) (R, error) {
	r, err := d.Begin(ctx, scope.Scope{}, Kinds())
	if err == nil {
		err = readNamed(ctx, r)
	}
	if err != nil {
		var none R
		return none, fmt.Errorf("read %s: %w", strings.ToLower(d.Server()), err)
	}
	return r, nil
}

// Writer writes changes through a read (Dialect.Write, or a dialect's
// other way of writing a saved plan).
type Writer[ID cmp.Ordered, R Reader[ID]] func(ctx context.Context, r R, changes []plan.Change) (bulkwrite.Result, error)

// Apply writes changes made without a plan with w, through a Prepare'd
// read.
func Apply[ID cmp.Ordered, R Reader[ID]](ctx context.Context, d Dialect[ID, R], w Writer[ID, R], changes []plan.Change) (bulkwrite.Result, error) {
	r, err := Prepare(ctx, d)
	if err != nil {
		return bulkwrite.Result{}, err
	}
	return w(ctx, r, changes)
}

// Target is a client reading one owner's scope, in the shape the
// reconcile flow drives targets with: every read is a State, which the
// plan made on it is written through.
type Target[ID cmp.Ordered, R Reader[ID]] struct {
	d     Dialect[ID, R]
	scope scope.Scope
	write Writer[ID, R]

	// follower follows the change log: Follow reads the scope whole,
	// Refresh brings that read up to date from the log, Sweep reads it
	// whole and says what following the log missed.
	follower *changelog.Follower
	// whole is the follower's last whole read, whose lookups and names
	// its view's objects are read and written with.
	mu    sync.Mutex
	whole R
}

var _ reconcile.Target = (*Target[string, Reader[string]])(nil)

// FollowedLog is the change log a Target follows, and which of its
// object types are the kinds of the scope.
type FollowedLog struct {
	changelog.Log
	Types []string
	Kinds map[string]resource.Kind
	Clock clock.Clock
}

// NewTarget is d as a target reading sc, following log.
func NewTarget[ID cmp.Ordered, R Reader[ID]](d Dialect[ID, R], sc scope.Scope, log FollowedLog) *Target[ID, R] {
	t := &Target[ID, R]{d: d, scope: sc, write: d.Write}
	t.follower = changelog.NewFollower(followed[ID, R]{log.Log, t}, log.Types, log.Kinds, log.Clock)
	return t
}

// WritingWith makes t write the plans made on its reads with w (a
// saved plan's compare-and-swap per object) instead of Dialect.Write.
// It returns t.
func (t *Target[ID, R]) WritingWith(w Writer[ID, R]) *Target[ID, R] {
	t.write = w
	return t
}

// Read reads the objects in scope, and the lookups a plan made on them
// checks and writes with.
func (t *Target[ID, R]) Read(ctx context.Context) (reconcile.State, error) {
	objs, r, err := List(ctx, t.d, t.scope)
	if err != nil {
		return nil, err
	}
	return t.state(objs, r), nil
}

func (t *Target[ID, R]) state(objs []resource.Object, r R) *State[ID, R] {
	return &State[ID, R]{objs: objs, r: r, t: t}
}

// Server names the server, for messages.
func (t *Target[ID, R]) Server() string { return t.d.Server() }

// Requests is how many requests the client has sent, retries included.
func (t *Target[ID, R]) Requests() int64 { return t.d.API().Requests() }

// Follow reads the scope whole, having first noted where the change log
// stands (changelog.Follower.Follow).
func (t *Target[ID, R]) Follow(ctx context.Context) (reconcile.State, error) {
	objs, err := t.follower.Follow(ctx)
	if err != nil {
		return nil, err
	}
	return t.state(objs, t.lastWhole()), nil
}

// Refresh brings the last whole read up to date from the change log and
// checks it (changelog.Follower.Refresh); its State writes with that
// read's lookups, which the log keeps up to date.
func (t *Target[ID, R]) Refresh(ctx context.Context) (reconcile.State, changelog.Stats, error) {
	return t.refreshed(t.follower.Refresh(ctx))
}

// RefreshUnchecked is Refresh without the check of the view.
func (t *Target[ID, R]) RefreshUnchecked(ctx context.Context) (reconcile.State, changelog.Stats, error) {
	return t.refreshed(t.follower.RefreshUnchecked(ctx))
}

func (t *Target[ID, R]) refreshed(objs []resource.Object, st changelog.Stats, err error) (reconcile.State, changelog.Stats, error) {
	if err != nil {
		return nil, st, err
	}
	return t.state(objs, t.lastWhole()), st, nil
}

// Sweep reads the scope whole and says what following the log missed
// (changelog.Follower.Sweep).
func (t *Target[ID, R]) Sweep(ctx context.Context) (reconcile.State, []changelog.Miss, error) {
	objs, misses, err := t.follower.Sweep(ctx)
	if err != nil {
		return nil, nil, err
	}
	return t.state(objs, t.lastWhole()), misses, nil
}

// Save is the followed view with its place in the log
// (changelog.Follower.Save).
func (t *Target[ID, R]) Save() (changelog.Saved, bool, error) { return t.follower.Save() }

// Resume follows on from saved (changelog.Follower.Resume).
func (t *Target[ID, R]) Resume(ctx context.Context, saved changelog.Saved) error {
	return t.follower.Resume(ctx, saved)
}

func (t *Target[ID, R]) lastWhole() R {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.whole
}

func (t *Target[ID, R]) setWhole(r R) {
	t.mu.Lock()
	t.whole = r
	t.mu.Unlock()
}

// State is one read of a Target: its objects, and the read that names
// them, which the plan's checks and its writes use.
type State[ID cmp.Ordered, R Reader[ID]] struct {
	objs []resource.Object
	r    R
	t    *Target[ID, R]
}

// Objects are the objects read.
func (s *State[ID, R]) Objects() []resource.Object { return s.objs }

// Names are the names of the lookups the read was made with.
func (s *State[ID, R]) Names() map[resource.Kind]map[string]bool { return s.r.RefNames() }

// AsStored is o as the server stores it.
func (s *State[ID, R]) AsStored(o resource.Object) resource.Object { return s.t.d.AsStored(o) }

// Check reports a change's desired object the server cannot hold: a
// kind or field it has no place for, or references it will refuse.
// Several problems are joined, each a *FieldError where it is about one
// field. A delete is the server's to refuse.
func (s *State[ID, R]) Check(c plan.Change, _ *plan.Plan) error {
	if c.Desired == nil {
		return nil
	}
	return s.t.d.Check(s.r, c.Desired)
}

// Apply writes changes and returns how many objects were written.
func (s *State[ID, R]) Apply(ctx context.Context, changes []plan.Change) (int, error) {
	res, err := s.t.write(ctx, s.r, changes)
	return res.Written, err
}

// Read is the dialect's read the State was made of.
func (s *State[ID, R]) Read() R { return s.r }

// followed is the adapter a Target's follower reads through.
type followed[ID cmp.Ordered, R Reader[ID]] struct {
	changelog.Log
	t *Target[ID, R]
}

var _ changelog.Adapter = followed[string, Reader[string]]{}

func (f followed[ID, R]) ReadWhole(ctx context.Context) ([]resource.Object, changelog.Rereader, error) {
	objs, r, err := List(ctx, f.t.d, f.t.scope)
	if err != nil {
		return nil, nil, err
	}
	f.t.setWhole(r)
	return objs, rereader[ID]{last: r, namespace: f.t.d.Namespace()}, nil
}

func (f followed[ID, R]) Restore(_ context.Context, saved []byte, objs []resource.Object) (changelog.Rereader, error) {
	kinds, err := KindsOf(f.t.scope, strings.ToLower(f.t.d.Server()))
	if err != nil {
		return nil, err
	}
	r, err := f.t.d.Restore(f.t.scope, kinds, saved, objs)
	if err != nil {
		return nil, err
	}
	f.t.setWhole(r)
	return rereader[ID]{last: r, namespace: f.t.d.Namespace()}, nil
}

// Names reads the names of the lookups a plan's references are checked
// against, without reading any object.
func Names[ID cmp.Ordered, R Reader[ID]](ctx context.Context, d Dialect[ID, R]) (map[resource.Kind]map[string]bool, error) {
	r, err := d.Begin(ctx, scope.Scope{}, Kinds())
	if err != nil {
		return nil, fmt.Errorf("read %s names: %w", strings.ToLower(d.Server()), err)
	}
	return r.RefNames(), nil
}

// FieldError is a problem with one field of a desired object.
type FieldError struct {
	Name    string // the field, as in specs and plans
	Message string
}

func (e *FieldError) Error() string { return e.Message }

// Field names the field the error is about.
func (e *FieldError) Field() string { return e.Name }

// FieldProblem is the problem msg with field.
func FieldProblem(field, msg string) *FieldError { return &FieldError{Name: field, Message: msg} }
