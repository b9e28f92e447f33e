package nautobot

import (
	"context"

	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sot"
)

// Target is a client reading one owner's scope, in the shape the reconcile
// flow drives targets with (sot.Target).
type Target = sot.Target[string]

// Target returns the client as a target reading sc.
func (c *Client) Target(sc scope.Scope) *Target {
	kinds, err := kindsOf(sc)
	if err != nil {
		kinds = sot.Kinds() // List refuses such a scope first
	}
	return sot.NewTarget[string](dialect{c}, sc, sot.FollowedLog{Log: c.changes(),
		Types: logTypes(kinds), Kinds: contentTypes(), Clock: clock.Real()})
}

// dialect is the client as the engine drives it.
type dialect struct{ c *Client }

var _ sot.Dialect[string] = dialect{}

func (dialect) Server() string    { return "Nautobot" }
func (dialect) Namespace() string { return "namespace" }

func (d dialect) Apply(ctx context.Context, changes []plan.Change) (int, error) {
	r, err := d.c.Apply(ctx, changes)
	return r.Written, err
}

// AsStored is o as Nautobot stores it: 3.x lowercases an IP address's
// DNS name when it saves one (2.4's check of it never fires). Before the
// client has connected, o is as given.
func (d dialect) AsStored(o resource.Object) resource.Object {
	d.c.connMu.Lock()
	srv := d.c.server
	d.c.connMu.Unlock()
	if srv != nil && srv.version.major >= 3 {
		return resource.LowerDNSName(o)
	}
	return o
}

// Check reports a desired object this Nautobot cannot hold: a kind or
// field it has no place for, or references it will refuse (see
// Client.check; it needs the lookups of a List or Names before it).
func (d dialect) Check(o resource.Object) error {
	if err := Supports(o); err != nil {
		return err
	}
	return d.c.check(o)
}

func (d dialect) Requests() int64 { return d.c.api.Requests() }
