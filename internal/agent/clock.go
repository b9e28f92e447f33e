package agent

import "github.com/ipsync/ipsync/internal/clock"

// Clock is the time source of the agent's schedule and of MemLease.
type Clock = clock.Clock

// Timer is a timer of a Clock.
type Timer = clock.Timer
