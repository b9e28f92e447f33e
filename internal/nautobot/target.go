package nautobot

import (
	"context"
	"sync"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// Target is a client reading one owner's scope, in the shape the reconcile
// flow drives targets with.
type Target struct {
	c     *Client
	scope scope.Scope

	mu sync.Mutex
	// listed are the lookups the last List read, until a Names takes
	// them: a plan reads List then Names, and the names it checks must
	// be those its objects were read with, not a second read of them.
	listed *lookups
	// Follower follows the change log: Follow reads the scope whole,
	// Refresh brings that read up to date from the log, Sweep reads it
	// whole and says what following the log missed. whole is the last
	// whole read it made, whose names a Refresh's objects are read with.
	*changelog.Follower
	whole *reading
}

// Target returns the client as a target reading sc.
func (c *Client) Target(sc scope.Scope) *Target {
	t := &Target{c: c, scope: sc}
	kinds, err := kindsOf(sc)
	if err != nil {
		kinds = nautobotKinds() // List refuses such a scope first
	}
	t.Follower = changelog.NewFollower(followed{&changeLog{c: c, t: &httpapi.Tally{}}, t}, logTypes(kinds), contentTypes(), clock.Real())
	return t
}

// List reads the objects in scope.
func (t *Target) List(ctx context.Context) ([]resource.Object, error) {
	objs, r, err := t.c.list(ctx, t.scope)
	t.mu.Lock()
	defer t.mu.Unlock()
	if r != nil {
		t.listed = r.m.l
	}
	return objs, err
}

// Server is "Nautobot", for messages.
func (t *Target) Server() string { return "Nautobot" }

// Apply writes changes and returns how many objects were written.
func (t *Target) Apply(ctx context.Context, changes []plan.Change) (int, error) {
	r, err := t.c.Apply(ctx, changes)
	return r.Written, err
}

// AsStored is o as Nautobot stores it: 3.x lowercases an IP address's
// DNS name when it saves one (2.4's check of it never fires). Before the
// client has connected, o is as given.
func (t *Target) AsStored(o resource.Object) resource.Object {
	t.c.connMu.Lock()
	srv := t.c.server
	t.c.connMu.Unlock()
	if srv != nil && srv.version.major >= 3 {
		return resource.LowerDNSName(o)
	}
	return o
}

// Names returns the names of the target-owned objects: those the List
// before it read, once, so that a plan reads each lookup once; without
// such a List (or after a Names took them) it reads them. A target is
// reused from one plan to the next, and the next plan's names are then
// read afresh by its own List.
func (t *Target) Names(ctx context.Context) (map[resource.Kind]map[string]bool, error) {
	t.mu.Lock()
	l := t.listed
	t.listed = nil
	t.mu.Unlock()
	if l != nil {
		return l.names(), nil
	}
	return t.c.Names(ctx)
}

// Check reports a desired object this Nautobot cannot hold: a kind or
// field it has no place for, or references it will refuse (see
// Client.check; it needs the lookups of a List or Names before it).
// Several problems are joined, each a *FieldError where it is about one
// field.
func (t *Target) Check(o resource.Object) error {
	if err := Supports(o); err != nil {
		return err
	}
	return t.c.check(o)
}

// Requests is how many requests the client has sent, retries included.
func (t *Target) Requests() int64 { return t.c.api.Requests() }
