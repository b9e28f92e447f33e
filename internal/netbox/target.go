package netbox

import (
	"context"
	"sync"

	"github.com/ipsync/ipsync/internal/changelog"
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
	// them: the names a plan checks are those its objects were read with.
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
	t.Follower = t.newFollower()
	return t
}

// Requests is how many requests the client has sent, retries included.
func (t *Target) Requests() int64 { return t.c.api.Requests() }

// List reads the objects in scope.
func (t *Target) List(ctx context.Context) ([]resource.Object, error) {
	objs, r, err := t.c.list(ctx, t.scope)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.listed = nil
	if r != nil {
		t.listed = r.m.l
	}
	return objs, err
}

// Server is "NetBox", for messages.
func (t *Target) Server() string { return "NetBox" }

// Apply writes changes and returns how many objects were written.
func (t *Target) Apply(ctx context.Context, changes []plan.Change) (int, error) {
	r, err := t.c.Apply(ctx, changes)
	return r.Written, err
}

// AsStored is o as NetBox stores it: it lowercases an IP address's DNS
// name whenever it saves one.
func (t *Target) AsStored(o resource.Object) resource.Object { return resource.LowerDNSName(o) }

// ApplySaved is Apply for a saved plan: updates and deletes are sent one
// object per request with If-Match, the version the plan saw, so an
// object changed in NetBox since the plan is refused alone (412).
func (t *Target) ApplySaved(ctx context.Context, changes []plan.Change) (int, error) {
	r, err := t.c.ApplySaved(ctx, changes)
	return r.Written, err
}

// Names returns the names of what NetBox owns: those the List before it
// read, once, else read now.
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

// Check reports a desired object this NetBox cannot hold: a kind or field
// it has no place for, or references it will refuse. Several problems are
// joined, each a *FieldError where it is about one field.
func (t *Target) Check(o resource.Object) error {
	if err := Supports(o); err != nil {
		return err
	}
	return t.c.check(o)
}
