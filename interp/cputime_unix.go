//go:build unix

package interp

import (
	"syscall"
	"time"
)

type cpuTimes struct{ user, sys time.Duration }

// cpuTime returns the CPU time the process has used, for %time.
func cpuTime() cpuTimes {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return cpuTimes{}
	}
	return cpuTimes{time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())}
}
