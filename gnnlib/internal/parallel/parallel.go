package parallel

import (
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
)

// threads holds the knob; 0 means runtime.GOMAXPROCS(0), read at each
// loop, so the default follows GOMAXPROCS.
var threads atomic.Int64

// SetThreads sets how many goroutines the loops use and returns the
// previous value of Threads(). n < 1 restores the default,
// runtime.GOMAXPROCS(0). n may exceed GOMAXPROCS (the goroutines then
// share the processors), which is how speed-up curves show oversubscription.
func SetThreads(n int) (previous int) {
	if n < 1 {
		n = 0
	}
	previous = Threads()
	threads.Store(int64(n))
	return previous
}

// Threads returns the number of goroutines the loops use.
func Threads() int {
	if n := int(threads.Load()); n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// Canceled is the panic value of a loop stopped by the cancel check.
type Canceled struct{ Err error }

func (c *Canceled) Error() string { return fmt.Sprintf("gnnlib: parallel loop canceled: %v", c.Err) }
func (c *Canceled) Unwrap() error { return c.Err }

var cancelCheck atomic.Pointer[func() error]

// SetCancelCheck installs check, which the loops call before each chunk
// (nil removes it), and returns the previous one. check must be cheap and
// safe to call from many goroutines at once.
func SetCancelCheck(check func() error) (previous func() error) {
	var p *func() error
	if check != nil {
		p = &check
	}
	if old := cancelCheck.Swap(p); old != nil {
		return *old
	}
	return nil
}

// stop records the first error of the cancel check for one loop.
type stop struct {
	check func() error
	err   atomic.Pointer[error]
}

func newStop() *stop {
	s := &stop{}
	if p := cancelCheck.Load(); p != nil {
		s.check = *p
	}
	return s
}

// done reports whether the loop must start no further chunk.
func (s *stop) done() bool {
	if s.check == nil {
		return false
	}
	if s.err.Load() != nil {
		return true
	}
	if err := s.check(); err != nil {
		s.err.CompareAndSwap(nil, &err)
		return true
	}
	return false
}

// raise panics with *Canceled when the check stopped the loop.
func (s *stop) raise() {
	if p := s.err.Load(); p != nil {
		panic(&Canceled{Err: *p})
	}
}

// Stats counts the loops run and the workers they used.
type Stats struct {
	Loops   int64 // loops run
	Workers int64 // workers used, summed over the loops (1 for a loop run inline)
}

var loops, workers atomic.Int64

// ReadStats returns the counts since the process started.
func ReadStats() Stats { return Stats{Loops: loops.Load(), Workers: workers.Load()} }

func count(w int) {
	loops.Add(1)
	workers.Add(int64(w))
}

// For calls f on disjoint ranges [lo, hi) covering [0, n), on up to
// Threads() goroutines, each range at least grain long (grain < 1 counts
// as 1). With one range, f runs on the calling goroutine.
func For(n, grain int, f func(lo, hi int)) {
	if n <= 0 {
		return
	}
	chunks := min(n/max(grain, 1), Threads())
	s := newStop()
	if chunks <= 1 {
		count(1)
		if !s.done() {
			f(0, n)
		}
		s.raise()
		return
	}
	count(chunks)
	var wg sync.WaitGroup
	for c := range chunks {
		lo, hi := c*n/chunks, (c+1)*n/chunks
		wg.Go(func() {
			if !s.done() {
				f(lo, hi)
			}
		})
	}
	wg.Wait()
	s.raise()
}

// Steal calls f(c) for every chunk c in [0, n), on up to Threads()
// goroutines that each take the next chunk from a shared counter, so
// that uneven chunks balance out.
func Steal(n int, f func(c int)) {
	if n <= 0 {
		return
	}
	s := newStop()
	w := min(Threads(), n)
	count(w)
	if w <= 1 {
		for c := 0; c < n && !s.done(); c++ {
			f(c)
		}
		s.raise()
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range w {
		wg.Go(func() {
			for c := int(next.Add(1)) - 1; c < n && !s.done(); c = int(next.Add(1)) - 1 {
				f(c)
			}
		})
	}
	wg.Wait()
	s.raise()
}

// SerialWork is the amount of work (about one multiply-add each) below
// which Rows runs on the calling goroutine: starting goroutines costs a
// few microseconds, which small graphs such as Karate Club would feel.
const SerialWork = 1 << 15

// Rows calls fn on disjoint row ranges [lo, hi) that cover the rows of the
// CSR offsets indptr. Ranges are cut so that each holds about the same
// number of edges plus rows, not the same number of rows, four blocks per
// worker taken from a shared counter. work estimates the total cost; below
// SerialWork the loop runs inline.
func Rows(indptr []int, work int, fn func(lo, hi int)) {
	n := len(indptr) - 1
	if n <= 0 {
		return
	}
	t := Threads()
	if t <= 1 || work < SerialWork || n < 2 {
		s := newStop()
		count(1)
		if !s.done() {
			fn(0, n)
		}
		s.raise()
		return
	}
	blocks := min(4*t, n)
	total := indptr[n] + n
	cut := make([]int, blocks+1)
	for b := 1; b < blocks; b++ {
		target := total * b / blocks
		cut[b] = sort.Search(n+1, func(v int) bool { return indptr[v]+v >= target })
	}
	cut[blocks] = n
	Steal(blocks, func(b int) {
		if lo, hi := cut[b], cut[b+1]; lo < hi {
			fn(lo, hi)
		}
	})
}

// Workers returns the number of ranges RowsByWorker cuts indptr into: 1
// when the edges plus rows are fewer than minWork, else Threads() (at most
// one per row).
func Workers(indptr []int, minWork int) int {
	n := len(indptr) - 1
	if n < 2 || indptr[n]+n < minWork {
		return 1
	}
	return max(1, min(Threads(), n))
}

// RowsByWorker calls fn(lo, hi, w) on Workers(indptr, minWork) disjoint
// row ranges with about the same number of edges plus rows each, range w
// on its own goroutine. The cut depends only on the graph and the thread
// count, so per-worker partial sums add up the same way every run.
func RowsByWorker(indptr []int, minWork int, fn func(lo, hi, w int)) {
	n := len(indptr) - 1
	if n < 0 {
		return
	}
	w := Workers(indptr, minWork)
	s := newStop()
	count(w)
	if w == 1 {
		if !s.done() {
			fn(0, n, 0)
		}
		s.raise()
		return
	}
	total := indptr[n] + n
	cut := make([]int, w+1)
	v := 0
	for i := 1; i < w; i++ {
		target := total * i / w
		for v < n && indptr[v]+v < target {
			v++
		}
		cut[i] = v
	}
	cut[w] = n
	var wg sync.WaitGroup
	for i := range w {
		wg.Go(func() {
			if !s.done() {
				fn(cut[i], cut[i+1], i)
			}
		})
	}
	wg.Wait()
	s.raise()
}
