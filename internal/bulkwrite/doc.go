// Package bulkwrite is the write engine the Nautobot and NetBox adapters
// share: it orders a plan's writes (parents first, deletes children
// first, a kind's updates before its creates), writes interim values
// before anything else, cuts each kind's writes into batches and runs
// them with the adapter's concurrency, skips changes whose dependency or
// parent prefix was not written, and counts what was written and what
// was refused. The adapter only builds request objects and sends batches
// in its server's wire format (see Writer).
package bulkwrite
