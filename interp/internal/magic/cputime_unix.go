//go:build unix

package magic

import (
	"syscall"
	"time"
)

// CPUTime returns the user and system CPU time the process has used, for
// %time.
func CPUTime() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
