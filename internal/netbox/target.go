package netbox

import (
	"context"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sot"
)

// Target is a client reading one owner's scope, in the shape the reconcile
// flow drives targets with (sot.Target), that also applies saved plans.
type Target struct {
	*sot.Target[int]
	c *Client
}

// Target returns the client as a target reading sc.
func (c *Client) Target(sc scope.Scope) *Target {
	kinds, err := kindsOf(sc)
	if err != nil {
		kinds = sot.Kinds() // List refuses such a scope first
	}
	return &Target{Target: sot.NewTarget[int](dialect{c}, sc, sot.FollowedLog{Log: c.changes(),
		Types: logTypes(c.lookupTypes()), Kinds: contentTypes(kinds), Clock: c.clock}), c: c}
}

// ApplySaved is Apply for a saved plan: updates and deletes are sent one
// object per request with If-Match, the version the plan saw, so an
// object changed in NetBox since the plan is refused alone (412).
func (t *Target) ApplySaved(ctx context.Context, changes []plan.Change) (int, error) {
	r, err := t.c.ApplySaved(ctx, changes)
	return r.Written, err
}

// dialect is the client as the engine drives it.
type dialect struct{ c *Client }

var _ sot.Dialect[int] = dialect{}

func (dialect) Server() string    { return "NetBox" }
func (dialect) Namespace() string { return "VRF" }

func (d dialect) Apply(ctx context.Context, changes []plan.Change) (int, error) {
	r, err := d.c.Apply(ctx, changes)
	return r.Written, err
}

// AsStored is o as NetBox stores it: it lowercases an IP address's DNS
// name whenever it saves one.
func (dialect) AsStored(o resource.Object) resource.Object { return resource.LowerDNSName(o) }

// Check reports a desired object this NetBox cannot hold: a kind or field
// it has no place for, or references it will refuse.
func (d dialect) Check(o resource.Object) error {
	if err := Supports(o); err != nil {
		return err
	}
	return d.c.check(o)
}

func (d dialect) Requests() int64 { return d.c.api.Requests() }
