// Package events turns Neutron's oslo.messaging notifications into hints for
// the per-site agent: which networks, subnets, ports, segments and segment
// ranges changed, so a sync can be narrowed instead of reading everything.
//
// Neutron's API layer emits "<resource>.<action>.end" notifications at INFO
// priority. With the rabbit driver they go to a topic exchange named after the
// control exchange ("neutron") with routing key "<topic>.<priority>"
// ("notifications.info"), usually wrapped in the 2.0 envelope
// {"oslo.version": "2.0", "oslo.message": "<json>"}.
//
// The consumer owns one durable queue per agent, bound to that exchange, so
// notifications sent while the agent is down are kept. Neutron's exchange is
// transient by oslo's default, though: when RabbitMQ restarts, the queue and
// its messages survive but its binding does not, and notifications sent
// before the consumer has reconnected and bound it again reach no queue.
//
// Router interfaces, router gateways and floating IPs give ports addresses
// without port notifications; the router and floating IP notifications
// Neutron sends instead are mapped to the networks they touch (addresses.go).
//
// Notifications are hints, not state: oslo sends them at most once and
// Neutron changes some objects without any (ports made by agents over RPC,
// such as DHCP ports), so the agent keeps its periodic full reconcile and
// treats every batch here as "look at these first".
package events
