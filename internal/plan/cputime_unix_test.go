//go:build unix

package plan

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has taken so far, user and
// system, on all its threads: the planner runs on every core, and on
// shared cores its wall time says less than the CPU it takes.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
