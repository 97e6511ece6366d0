package graph

import "github.com/gnnlab/gnnlab/gnnlib/internal/parallel"

// SetThreads is tensor.SetThreads (both set one knob, which governs the
// graph kernels too) and returns the previous thread count.
//
// Deprecated: call tensor.SetThreads, the one thread knob of gnnlib.
func SetThreads(n int) (previous int) { return parallel.SetThreads(n) }

// Threads is tensor.Threads.
//
// Deprecated: call tensor.Threads.
func Threads() int { return parallel.Threads() }

// parallelRows is parallel.Rows: fn on row ranges of about equal edges
// plus rows; work estimates the total cost.
func parallelRows(indptr []int, work int, fn func(lo, hi int)) { parallel.Rows(indptr, work, fn) }
