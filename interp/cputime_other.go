//go:build !unix

package interp

import "time"

type cpuTimes struct{ user, sys time.Duration }

// cpuTime is zero where getrusage is missing: %time shows wall time only.
func cpuTime() cpuTimes { return cpuTimes{} }
