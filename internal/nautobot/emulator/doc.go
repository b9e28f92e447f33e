// Package emulator is an in-process emulator of the parts of Nautobot's
// REST API that ipsync uses, for tests and for ipsync demo, which serves
// it from the shipped binary. It holds real state in memory and answers
// the way Nautobot 2.4 and 3.x do (WithVersion picks the line): token
// auth, version negotiation in the Accept header, limit/offset pagination,
// strict filtering, bulk create/update/delete that are all-or-none, model
// validation with DRF-shaped error bodies, 500s where Nautobot lets an
// exception through, computed prefix and IP parents, the
// nautobot-bgp-models app's autonomous systems, and the change log (one
// record per object and request, written in the request's transaction).
// Requests are counted by method and path.
//
// What only tests need is not linked unless asked for, so that it does not
// weigh on the binary: WithChangeLog serves the change log
// (/api/extras/object-changes/) and the content types its filters name,
// which the demo never reads; emulatortest adds both, and faults injected
// in front of the emulator (WithFront), for the tests.
//
// TestConformance runs one table of scenarios against the emulator and
// against real servers (scripts/nautobot-up.sh); where they differ, the
// emulator is fixed. What the emulator knowingly does otherwise:
//   - Objects that tie in their model's ordering are ordered by id, so
//     offset pages are stable; a real server may repeat one tied object
//     on two pages and skip another (3.2.7 did, for IP addresses with one
//     host in several namespaces). That is one of the orders a real
//     server may give, so a client must not rely on stable pages;
//     WithUnstableTies gives the unstable ones.
//
// Where else it differs, ipsync does not look:
//   - A prefix's network or namespace cannot be changed in place (a 400);
//     ipsync identifies a prefix by both and never changes them.
//   - ?depth above 0 is answered as depth 0.
//   - Only the fields and filters of the kinds it serves exist; fields
//     ipsync never reads (natural_slug, computed_fields, relationships,
//     vrfs, rir) are absent or approximated, and there are no circuit
//     providers, so an autonomous system's provider can only be null.
//   - The change log's object_data and object_data_v2 both hold the
//     object as the API shows it at depth 0, with relative urls; every
//     token is one user, "admin". /api/extras/content-types/ lists only
//     the types below, with the ids 3.2.7 and 2.4.44 give them.
//   - Statuses, tags and roles know only the content types the emulator
//     serves, plus dcim.device, dcim.interface, circuits.circuit and
//     virtualization.virtualmachine; filter lookups such as name__ic are
//     not served.
package emulator
