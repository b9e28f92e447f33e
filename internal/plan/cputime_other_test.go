//go:build !unix

package plan

import "time"

// cpuTime is not measured where there is no getrusage.
func cpuTime() (time.Duration, bool) { return 0, false }
