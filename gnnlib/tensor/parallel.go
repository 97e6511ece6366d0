package tensor

import "github.com/gnnlab/gnnlab/gnnlib/internal/parallel"

// SetThreads sets how many goroutines gnnlib's CPU code uses — tensor ops
// (MatMul, sparse MatMul, Conv2D, large elementwise ops), the graph
// kernels, the nn layers' aggregations, quantized kernels — and returns
// the previous value of Threads(). n < 1 restores the default,
// runtime.GOMAXPROCS(0). The setting is global: it is the one knob a
// notebook turns to measure speed-up against threads.
func SetThreads(n int) int { return parallel.SetThreads(n) }

// Threads returns the number of goroutines parallel ops use.
func Threads() int { return parallel.Threads() }

// parallelFor is parallel.For: f on disjoint ranges covering [0, n), each
// of at least grain items.
func parallelFor(n, grain int, f func(lo, hi int)) { parallel.For(n, grain, f) }

// elemGrain is the number of elements below which elementwise ops stay on
// one goroutine: starting goroutines costs more than the work.
const elemGrain = 1 << 15
