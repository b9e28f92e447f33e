package nautobot

import (
	"cmp"
	"context"

	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sot"
)

// Target is a client reading one owner's scope, in the shape the reconcile
// flow drives targets with (sot.Target).
type Target = sot.Target[string, *reading]

// Target returns the client as a target reading sc.
func (c *Client) Target(sc scope.Scope) *Target {
	kinds := sot.KindsOr(sc)
	return sot.NewTarget[string, *reading](c, sc, sot.FollowedLog{Log: c.changes(),
		Types: logTypes(kinds), Kinds: contentTypes(), Clock: clock.Real()})
}

var _ sot.Dialect[string, *reading] = (*Client)(nil)

// Server is "Nautobot", for messages.
func (*Client) Server() string { return "Nautobot" }

// Namespace is what Nautobot calls a namespace, for messages.
func (*Client) Namespace() string { return "namespace" }

// API is the client's request loop.
func (c *Client) API() *httpapi.Client { return c.api }

// AsStored is o as Nautobot stores it: 3.x lowercases an IP address's
// DNS name when it saves one (2.4's check of it never fires). Before the
// client has connected, o is as given.
func (c *Client) AsStored(o resource.Object) resource.Object {
	c.connMu.Lock()
	srv := c.server
	c.connMu.Unlock()
	if srv != nil && srv.version.major >= 3 {
		return resource.LowerDNSName(o)
	}
	return o
}

// Check reports a desired object this Nautobot cannot hold, as the read
// r found it: a kind or field it has no place for (Supports), or
// references it will refuse (check).
func (c *Client) Check(r *reading, o resource.Object) error {
	return cmp.Or(Supports(o), c.check(r, o))
}

// Apply writes changes made without a plan (by hand, a test's), through
// a read of what they may name (sot.Prepare).
func (c *Client) Apply(ctx context.Context, changes []plan.Change) (ApplyResult, error) {
	return sot.Apply(ctx, sot.Dialect[string, *reading](c), c.Write, changes)
}
