package events

import "github.com/ipsync/ipsync/internal/clock"

// Clock is the time source of the reconnect backoff and the coalescing
// windows.
type Clock = clock.Clock

// Timer is a timer of a Clock.
type Timer = clock.Timer
