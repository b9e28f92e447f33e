package cli

import (
	"crypto/rand"
	"os"
	"strings"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
)

// queue is the RabbitMQ queue an agent alone consumes. Every agent of a
// site gets every notification in a queue of its own: the standby keeps
// its view of Neutron as current as the holder's, and nobody takes from
// another agent's queue what that agent never sees.
type queue struct {
	name string
	// keepFor is how long the queue outlives its agent (events.Config's
	// KeepFor): long enough for the saved state to be followed on from,
	// zero when the agent keeps no state.
	keepFor time.Duration
}

// ownQueue is this agent's queue: <prefix>.<host>.<random>, where prefix
// is agent.rabbitmq.queue (default ipsync-<site>). With a state, the name
// is the one the state kept, if it has one of this prefix, so that a
// restart finds the queue that kept what came while it was down; the
// queue then lives a day unused, as long as the state can be followed on
// from. Without one, nothing can follow on from the queue, and it goes
// with the agent.
func ownQueue(prefix, site string, st *siteState) queue {
	if prefix == "" {
		prefix = "ipsync-" + site
	}
	if st != nil {
		return queue{name: st.queueName(prefix), keepFor: changelog.MaxGap}
	}
	return queue{name: newQueueName(prefix)}
}

// newQueueName names a queue after the host, for whoever lists the
// broker's queues, with a random part: two agents on one host, or two
// containers with one host name, must not share a queue.
func newQueueName(prefix string) string {
	host, _ := os.Hostname()
	if host == "" {
		host = "agent"
	}
	return prefix + "." + host + "." + strings.ToLower(rand.Text()[:8])
}
