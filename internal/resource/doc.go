// Package resource holds ipsync's domain model: the kinds of objects it keeps
// in agreement, their natural keys, owners and field-level comparison.
//
// It depends on the standard library only, so every adapter (YAML spec,
// Nautobot, Neutron) and the planner can share it without pulling each
// other in. Wire formats never appear here.
package resource
