//go:build !unix

package parallel_test

import "time"

// cpuTime is 0 where getrusage is missing: BenchmarkCut then reports
// wall time only.
func cpuTime() time.Duration { return 0 }
