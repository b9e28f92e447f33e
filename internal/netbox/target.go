package netbox

import (
	"cmp"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sot"
)

// Target is a client reading one owner's scope, in the shape the reconcile
// flow drives targets with (sot.Target).
type Target = sot.Target[int, *reading]

// Target returns the client as a target reading sc.
func (c *Client) Target(sc scope.Scope) *Target {
	return sot.NewTarget[int, *reading](c, sc, sot.FollowedLog{Log: c.changes(),
		Types: logTypes(c.lookupTypes()), Kinds: contentTypes(sot.KindsOr(sc)), Clock: c.clock})
}

// SavedTarget is Target for applying a saved plan: its writes go object
// by object with If-Match (WriteSaved).
func (c *Client) SavedTarget(sc scope.Scope) *Target {
	return c.Target(sc).WritingWith(c.WriteSaved)
}

var _ sot.Dialect[int, *reading] = (*Client)(nil)

// Server is "NetBox", for messages.
func (*Client) Server() string { return "NetBox" }

// Namespace is what stands for a namespace in NetBox, for messages.
func (*Client) Namespace() string { return "VRF" }

// API is the client's request loop.
func (c *Client) API() *httpapi.Client { return c.api }

// AsStored is o as NetBox stores it: it lowercases an IP address's DNS
// name whenever it saves one.
func (*Client) AsStored(o resource.Object) resource.Object { return resource.LowerDNSName(o) }

// Check reports a desired object this NetBox cannot hold, as the read r
// found it: a kind or field it has no place for (Supports), or references
// it will refuse (check).
func (c *Client) Check(r *reading, o resource.Object) error {
	return cmp.Or(Supports(o), c.check(r, o))
}
