package netbox

import (
	"cmp"
	"context"

	"github.com/ipsync/ipsync/internal/httpapi"
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
	kinds := sot.KindsOr(sc)
	return &Target{Target: sot.NewTarget[int](c, sc, sot.FollowedLog{Log: c.changes(),
		Types: logTypes(c.lookupTypes()), Kinds: contentTypes(kinds), Clock: c.clock}), c: c}
}

// ApplySaved is Apply for a saved plan: updates and deletes are sent one
// object per request with If-Match, the version the plan saw, so an
// object changed in NetBox since the plan is refused alone (412).
func (t *Target) ApplySaved(ctx context.Context, changes []plan.Change) (int, error) {
	r, err := t.c.ApplySaved(ctx, changes)
	return r.Written, err
}

var _ sot.Dialect[int] = (*Client)(nil)

// Server is "NetBox", for messages.
func (*Client) Server() string { return "NetBox" }

// Namespace is what stands for a namespace in NetBox, for messages.
func (*Client) Namespace() string { return "VRF" }

// API is the client's request loop.
func (c *Client) API() *httpapi.Client { return c.api }

// AsStored is o as NetBox stores it: it lowercases an IP address's DNS
// name whenever it saves one.
func (*Client) AsStored(o resource.Object) resource.Object { return resource.LowerDNSName(o) }

// Check reports a desired object this NetBox cannot hold: a kind or field
// it has no place for (Supports), or references it will refuse (check).
func (c *Client) Check(o resource.Object) error { return cmp.Or(Supports(o), c.check(o)) }
