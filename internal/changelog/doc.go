// Package changelog follows a target's change log (Nautobot's and NetBox's
// object-changes) so that a site agent rereads only what changed since its
// last cycle instead of the owner's whole scope.
//
// A Cursor knows where in the log the last read stopped; a View is the
// owner's objects as last read, brought up to date from the changes the
// cursor returns. Adapters supply the wire: reading log entries and
// rereading objects by id. Whenever the log cannot be trusted to name every
// change, Next or Update returns an *UntrustedError and the caller reads
// the target whole instead.
package changelog
