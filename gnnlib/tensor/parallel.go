package tensor

import (
	"runtime"
	"sync"
	"sync/atomic"
)

var threads atomic.Int64

func init() { threads.Store(int64(runtime.GOMAXPROCS(0))) }

// SetThreads sets how many goroutines parallel ops (MatMul, sparse MatMul,
// Conv2D, large elementwise ops) use, and returns the previous value.
// n < 1 restores the default, runtime.GOMAXPROCS(0). The setting is global.
func SetThreads(n int) int {
	if n < 1 {
		n = runtime.GOMAXPROCS(0)
	}
	return int(threads.Swap(int64(n)))
}

// Threads returns the number of goroutines parallel ops use.
func Threads() int { return int(threads.Load()) }

// parallelFor calls f on disjoint ranges [lo, hi) covering [0, n), in
// parallel when there is enough work: each range holds at least grain items.
// f must not panic (a panic in a goroutine kills the process), so callers
// check shapes and indices before.
func parallelFor(n, grain int, f func(lo, hi int)) {
	if grain < 1 {
		grain = 1
	}
	chunks := n / grain
	if th := Threads(); chunks > th {
		chunks = th
	}
	if chunks <= 1 {
		if n > 0 {
			f(0, n)
		}
		return
	}
	var wg sync.WaitGroup
	wg.Add(chunks)
	for c := 0; c < chunks; c++ {
		lo, hi := c*n/chunks, (c+1)*n/chunks
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

// elemGrain is the number of elements below which elementwise ops stay on
// one goroutine: starting goroutines costs more than the work.
const elemGrain = 1 << 15
