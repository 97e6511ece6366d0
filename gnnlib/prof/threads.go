package prof

import "github.com/gnnlab/gnnlab/gnnlib/tensor"

// SetThreads is tensor.SetThreads, the one control of gnnlib's CPU
// parallelism (tensor ops, graph kernels and layers alike); it returns the
// previous thread count. MeasureSpeedup turns it for each count.
//
// Deprecated: call tensor.SetThreads.
func SetThreads(n int) (previous int) { return tensor.SetThreads(n) }

// Threads is tensor.Threads.
//
// Deprecated: call tensor.Threads.
func Threads() int { return tensor.Threads() }
