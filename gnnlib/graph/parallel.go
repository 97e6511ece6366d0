package graph

import (
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
)

var threads atomic.Int64

// SetThreads sets how many goroutines the kernels use and returns the
// previous setting; n <= 0 means runtime.GOMAXPROCS(0), the default.
// gnnlib/nn keeps it equal to the tensor package's setting.
func SetThreads(n int) (previous int) {
	if n < 0 {
		n = 0
	}
	return int(threads.Swap(int64(n)))
}

// Threads returns the number of goroutines the kernels use.
func Threads() int {
	if n := int(threads.Load()); n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// serialWork is the amount of work (about one multiply-add each) below which
// a kernel runs on the calling goroutine: starting goroutines costs a few
// microseconds, which small graphs such as Karate Club would feel.
const serialWork = 1 << 15

// parallelRows calls fn on disjoint row ranges [lo, hi) that cover the rows
// of the CSR offsets indptr. Ranges are cut so that each holds about the
// same number of edges plus rows, not the same number of rows: power-law
// graphs put most edges on a few rows. work estimates the total cost.
func parallelRows(indptr []int, work int, fn func(lo, hi int)) {
	n := len(indptr) - 1
	t := Threads()
	if t <= 1 || work < serialWork || n < 2 {
		fn(0, n)
		return
	}
	// Several blocks per goroutine let fast workers take over from slow ones.
	blocks := min(4*t, n)
	total := indptr[n] + n
	cut := make([]int, blocks+1)
	for b := 1; b < blocks; b++ {
		target := total * b / blocks
		cut[b] = sort.Search(n+1, func(v int) bool { return indptr[v]+v >= target })
	}
	cut[blocks] = n
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(t, blocks); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				b := int(next.Add(1)) - 1
				if b >= blocks {
					return
				}
				if lo, hi := cut[b], cut[b+1]; lo < hi {
					fn(lo, hi)
				}
			}
		}()
	}
	wg.Wait()
}
