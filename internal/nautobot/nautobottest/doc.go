// Package nautobottest is an in-process emulator of the parts of Nautobot's
// REST API that ipsync uses, for tests and demos. It holds real state in
// memory and answers the way Nautobot 2.2-3.x does: token auth, version
// negotiation in the Accept header, limit/offset pagination, strict
// filtering, bulk create/update/delete that are all-or-none, model
// validation with DRF-shaped error bodies, computed prefix and IP parents,
// and the nautobot-bgp-models plugin's autonomous systems.
//
// Faults (latency, 5xx bursts, 429 with Retry-After, connection resets,
// truncated or short pages) can be switched on per test at runtime, and
// requests are counted by method and path.
//
// Where the emulator knowingly differs from Nautobot, the code says so:
// items of one bulk create are validated in order against the state that
// includes the earlier items (Nautobot validates every item against the
// state before the request, then fails a duplicate within the batch with a
// server error); a prefix's network or namespace cannot be changed in place;
// location names are unique; ?depth above 0 is answered as depth 0.
package nautobottest
