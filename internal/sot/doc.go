// Package sot is the engine both sources of truth share. Nautobot and
// NetBox speak one protocol (Django REST framework: paged lists, bulk
// writes, one error envelope, an object change log), so paging, the read
// of a scope (named kinds, kinds by scope, the owner's objects elsewhere,
// references resolved), following the change log and the target the
// reconcile flow drives are written once, here. A dialect
// (internal/nautobot, internal/netbox) keeps only its wire format, its
// field names and lookups, and its server's rules and quirks.
package sot
