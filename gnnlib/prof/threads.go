package prof

import (
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// SetThreads sets the number of goroutines that gnnlib's parallel code
// uses, tensor ops and graph kernels alike, and returns the previous
// tensor setting. n < 1 restores the default, runtime.GOMAXPROCS(0). It is
// the one knob a notebook turns to measure speedup against threads.
func SetThreads(n int) (previous int) {
	if n < 1 {
		n = 0
	}
	previous = tensor.SetThreads(n)
	graph.SetThreads(n)
	return previous
}

// Threads returns the number of goroutines gnnlib's tensor ops use.
func Threads() int { return tensor.Threads() }
