// Package netbox is ipsync's target adapter for NetBox's REST API (4.7 and
// later): it reads the IPAM objects in an owner's scope as resource objects
// and writes plan changes back with bulk requests.
//
// NetBox's model differs from Nautobot's where ipsync meets it: a namespace
// is a VRF (the namespace "Global" is NetBox's global table, no VRF at
// all), a VLAN group has a slug and a scope (a site or a location), a
// prefix has one scope instead of several locations and keeps "container"
// as a status, and statuses are fixed choices rather than objects. Status
// names are the choices' labels ("Active"), as in Nautobot.
//
// Reads page by primary key (?start=), which stays stable while others
// write; a failed page fails the whole read, never returning part of it.
// Bulk writes are all or nothing in NetBox, and a refused one names its bad
// objects (by index for creates, by id for updates and deletes), so they
// are taken out and the rest is sent again, without bisection.
//
// A Target follows NetBox's change log (Follow, Refresh): after a whole
// read it rereads only the objects the log names, through the same scoped
// sweeps, and asks for a whole read again whenever the log cannot say
// what changed (a lookup, a VRF or VLAN group renamed). Changes NetBox
// makes without a record of their own (prefixes moved with their
// location, objects changed outside an API request) are left to the
// whole read an agent makes daily.
package netbox
