package agent

import "context"

// Lease makes one agent the only writer for an owner.
type Lease interface {
	// Acquire tries once and reports whether this agent holds the lease
	// now; it renews the lease if already held.
	Acquire(ctx context.Context) (bool, error)
	// Release gives the lease up if this agent holds it.
	Release(ctx context.Context) error
}
