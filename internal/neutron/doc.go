// Package neutron reads a site's OpenStack Neutron (networks, segments,
// subnets, ports, network segment ranges), maps what it reads to ipsync's
// domain objects, and writes the one thing ipsync owns in Neutron: network
// segment ranges declared in the static spec.
//
// Wire types stay in this package; callers see Snapshot (plain Neutron
// records), resource.Object values and Report.
package neutron
