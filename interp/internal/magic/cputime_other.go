//go:build !unix

package magic

import "time"

// CPUTime is zero where getrusage is missing: %time shows wall time only.
func CPUTime() (user, sys time.Duration) { return 0, 0 }
