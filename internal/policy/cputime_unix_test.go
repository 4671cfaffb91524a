//go:build unix

package policy

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user + system) the process has used. On a
// shared machine it measures the work done, where wall time also counts
// the wait for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
