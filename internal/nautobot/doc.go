// Package nautobot is ipsync's target adapter for Nautobot's REST API: it
// reads the IPAM objects in an owner's scope as resource objects and
// writes plan changes back with bulk requests.
//
// Reads are one paged sweep per kind; a short or failed sweep is an
// error, never a partial list, because a partial current state would
// plan deletes. Writes retry transient failures with backoff and never
// duplicate a create: objects are created with client-chosen ids, and a
// create retried after an ambiguous failure first asks which of its ids
// already exist. A batch that Nautobot rejects is split until the bad
// objects are isolated; the others are written. The order of the writes,
// their batches and the bookkeeping of what was refused are the shared
// engine's (package bulkwrite), the retrying request loop is package
// httpapi's: this package holds Nautobot's wire format and rules.
package nautobot
