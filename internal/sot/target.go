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
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// Dialect is what the engine needs of one server's client.
type Dialect[ID cmp.Ordered] interface {
	// Server names the server in messages: "Nautobot", "NetBox".
	Server() string
	// Begin starts a read of sc's kinds: it reads the lookups the
	// objects will be named with.
	Begin(ctx context.Context, sc scope.Scope, kinds []resource.Kind) (Reader[ID], error)
	// Restore is the Reader a Save returned, with the objects of the
	// view, as if it had just read them, without reading anything.
	Restore(sc scope.Scope, kinds []resource.Kind, saved []byte, objs []resource.Object) (Reader[ID], error)
	// Check reports a desired object this server cannot hold.
	Check(o resource.Object) error
	// Apply writes changes.
	Apply(ctx context.Context, changes []plan.Change) (bulkwrite.Result, error)
	// AsStored is o as this server stores it.
	AsStored(o resource.Object) resource.Object
	// API is the client's request loop.
	API() *httpapi.Client
	// Namespace is what the server calls a namespace, in messages.
	Namespace() string
}

// List reads every object of sc. It fails rather than return part of
// what the server holds.
func List[ID cmp.Ordered](ctx context.Context, d Dialect[ID], sc scope.Scope) ([]resource.Object, Reader[ID], error) {
	kinds, err := KindsOf(sc, strings.ToLower(d.Server()))
	if err != nil {
		return nil, nil, err
	}
	r, err := d.Begin(ctx, sc, kinds)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", strings.ToLower(d.Server()), err)
	}
	objs, err := read(ctx, r)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", strings.ToLower(d.Server()), err)
	}
	return objs, r, nil
}

// Target is a client reading one owner's scope, in the shape the
// reconcile flow drives targets with.
type Target[ID cmp.Ordered] struct {
	d     Dialect[ID]
	scope scope.Scope

	mu sync.Mutex
	// listed is the last List's read, until a Names takes its names: a
	// plan reads List then Names, and the names it checks must be those
	// its objects were read with, not a second read of them.
	listed Reader[ID]
	// Follower follows the change log: Follow reads the scope whole,
	// Refresh brings that read up to date from the log, Sweep reads it
	// whole and says what following the log missed. whole is the last
	// whole read it made, whose names a Refresh's objects are read with.
	*changelog.Follower
	whole Reader[ID]
}

// FollowedLog is the change log a Target follows, and which of its
// object types are the kinds of the scope.
type FollowedLog struct {
	changelog.Log
	Types []string
	Kinds map[string]resource.Kind
	Clock clock.Clock
}

// NewTarget is d as a target reading sc, following log.
func NewTarget[ID cmp.Ordered](d Dialect[ID], sc scope.Scope, log FollowedLog) *Target[ID] {
	t := &Target[ID]{d: d, scope: sc}
	t.Follower = changelog.NewFollower(followed[ID]{log.Log, t}, log.Types, log.Kinds, log.Clock)
	return t
}

// List reads the objects in scope.
func (t *Target[ID]) List(ctx context.Context) ([]resource.Object, error) {
	objs, r, err := List(ctx, t.d, t.scope)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.listed = r
	return objs, err
}

// Names returns the names of the target-owned objects: those the List
// before it read, once, so that a plan reads each lookup once; without
// such a List (or after a Names took them) it reads them. A target is
// reused from one plan to the next, and the next plan's names are then
// read afresh by its own List.
func (t *Target[ID]) Names(ctx context.Context) (map[resource.Kind]map[string]bool, error) {
	t.mu.Lock()
	r := t.listed
	t.listed = nil
	t.mu.Unlock()
	if r != nil {
		return r.RefNames(), nil
	}
	return Names(ctx, t.d)
}

// Server names the server, for messages.
func (t *Target[ID]) Server() string { return t.d.Server() }

// Apply writes changes and returns how many objects were written.
func (t *Target[ID]) Apply(ctx context.Context, changes []plan.Change) (int, error) {
	r, err := t.d.Apply(ctx, changes)
	return r.Written, err
}

// AsStored is o as the server stores it.
func (t *Target[ID]) AsStored(o resource.Object) resource.Object { return t.d.AsStored(o) }

// Check reports a desired object the server cannot hold: a kind or
// field it has no place for, or references it will refuse. Several
// problems are joined, each a *FieldError where it is about one field.
func (t *Target[ID]) Check(o resource.Object) error { return t.d.Check(o) }

// Requests is how many requests the client has sent, retries included.
func (t *Target[ID]) Requests() int64 { return t.d.API().Requests() }

// followed is the adapter a Target's follower reads through.
type followed[ID cmp.Ordered] struct {
	changelog.Log
	t *Target[ID]
}

var _ changelog.Adapter = followed[string]{}

// Reused keeps the names of the whole read for the plan of a Refresh's
// objects.
func (f followed[ID]) Reused() {
	f.t.mu.Lock()
	f.t.listed = f.t.whole
	f.t.mu.Unlock()
}

func (f followed[ID]) ReadWhole(ctx context.Context) ([]resource.Object, changelog.Rereader, error) {
	objs, r, err := List(ctx, f.t.d, f.t.scope)
	if err != nil {
		return nil, nil, err
	}
	f.t.mu.Lock()
	f.t.listed, f.t.whole = r, r
	f.t.mu.Unlock()
	return objs, rereader[ID]{last: r, namespace: f.t.d.Namespace()}, nil
}

func (f followed[ID]) Restore(_ context.Context, saved []byte, objs []resource.Object) (changelog.Rereader, error) {
	kinds, err := KindsOf(f.t.scope, strings.ToLower(f.t.d.Server()))
	if err != nil {
		return nil, err
	}
	r, err := f.t.d.Restore(f.t.scope, kinds, saved, objs)
	if err != nil {
		return nil, err
	}
	f.t.mu.Lock()
	f.t.listed, f.t.whole = r, r
	f.t.mu.Unlock()
	return rereader[ID]{last: r, namespace: f.t.d.Namespace()}, nil
}

// Names reads the names of the lookups a plan's references are checked
// against, without reading any object.
func Names[ID cmp.Ordered](ctx context.Context, d Dialect[ID]) (map[resource.Kind]map[string]bool, error) {
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
