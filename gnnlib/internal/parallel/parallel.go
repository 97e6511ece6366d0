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

// Stopping reports whether the installed cancel check fails now. A chunk
// that runs long by itself (a GEMM's share of a 4000² product takes
// seconds) calls it between its blocks and returns early when it is true;
// the loop it runs in then panics with *Canceled, as it does when the check
// fails between chunks, because every loop checks once more after its
// last chunk. Only code that runs inside a loop of this package may return
// early on it.
func Stopping() bool {
	p := cancelCheck.Load()
	return p != nil && (*p)() != nil
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

// raise panics with *Canceled when the check stopped the loop. It checks
// once more itself: a chunk may have returned early on Stopping.
func (s *stop) raise() {
	s.done()
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

// chunksPerWorker is how many chunks For and Rows cut per worker at
// most. A worker checks the cancel hook before each chunk it takes, so an
// interrupt stops a long operation (a 4000² MatMul takes seconds) within
// one chunk, a sixteenth of a worker's share, instead of at its end; and
// the workers take the chunks from a shared counter, so that one slow
// worker does not hold up the others.
const chunksPerWorker = 16

// forHook, rowsHook and rowsByWorkerHook replace For, Rows and
// RowsByWorker when set; the benchmark of the chunking sets them to the
// loops as they were before (export_test.go) to run both side by side.
var (
	forHook          func(n, grain int, f func(lo, hi int))
	rowsHook         func(indptr []int, work int, fn func(lo, hi int))
	rowsByWorkerHook func(indptr []int, minWork int, fn func(lo, hi, w int))
)

// For calls f on disjoint ranges [lo, hi) covering [0, n), on up to
// Threads() goroutines, each range at least grain long (grain < 1 counts
// as 1). The ranges are up to chunksPerWorker per goroutine, taken from a
// shared counter; with one goroutine they run in order on the calling
// goroutine, and a single range runs there too.
func For(n, grain int, f func(lo, hi int)) {
	if forHook != nil {
		forHook(n, grain, f)
		return
	}
	if n <= 0 {
		return
	}
	most := max(n/max(grain, 1), 1)
	w := min(most, Threads())
	chunks := min(most, w*chunksPerWorker)
	s := newStop()
	if w == 1 {
		count(1)
		for c := 0; c < chunks && !s.done(); c++ {
			f(c*n/chunks, (c+1)*n/chunks)
		}
		s.raise()
		return
	}
	count(w)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range w {
		wg.Go(func() {
			for c := int(next.Add(1)) - 1; c < chunks && !s.done(); c = int(next.Add(1)) - 1 {
				f(c*n/chunks, (c+1)*n/chunks)
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
// number of edges plus rows, not the same number of rows, up to
// chunksPerWorker blocks per worker taken from a shared counter. work
// estimates the total cost; below SerialWork the loop runs inline as one
// range, and with one thread its blocks run in order on the calling
// goroutine.
func Rows(indptr []int, work int, fn func(lo, hi int)) {
	if rowsHook != nil {
		rowsHook(indptr, work, fn)
		return
	}
	n := len(indptr) - 1
	if n <= 0 {
		return
	}
	t := Threads()
	if work < SerialWork || n < 2 {
		s := newStop()
		count(1)
		if !s.done() {
			fn(0, n)
		}
		s.raise()
		return
	}
	blocks := min(chunksPerWorker*max(t, 1), n)
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
// on its own goroutine. A range of at least minWork edges plus rows is
// handed to fn in up to chunksPerWorker consecutive pieces, in order, all
// with the same w (the cancel check runs before each), so fn must add to
// what worker w gathered before rather than start afresh. The cut depends
// only on the graph and the thread count, so per-worker partial sums add
// up the same way every run.
func RowsByWorker(indptr []int, minWork int, fn func(lo, hi, w int)) {
	if rowsByWorkerHook != nil {
		rowsByWorkerHook(indptr, minWork, fn)
		return
	}
	n := len(indptr) - 1
	if n < 0 {
		return
	}
	w := Workers(indptr, minWork)
	s := newStop()
	count(w)
	if w == 1 {
		inPieces(indptr, 0, n, minWork, s, func(lo, hi int) { fn(lo, hi, 0) })
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
			inPieces(indptr, cut[i], cut[i+1], minWork, s, func(lo, hi int) { fn(lo, hi, i) })
		})
	}
	wg.Wait()
	s.raise()
}

// inPieces calls fn on rows [lo, hi) of indptr in order: in up to
// chunksPerWorker pieces of about equal edges plus rows when the range
// holds at least minWork of them, else whole; it stops before a piece
// when s is done.
func inPieces(indptr []int, lo, hi, minWork int, s *stop, fn func(lo, hi int)) {
	work := indptr[hi] + hi - indptr[lo] - lo
	pieces := min(chunksPerWorker, hi-lo)
	if work < max(minWork, 1) || pieces < 2 {
		if !s.done() {
			fn(lo, hi)
		}
		return
	}
	base := indptr[lo] + lo
	from := lo
	for p := 1; p <= pieces && !s.done(); p++ {
		to := hi
		if p < pieces {
			target := base + work*p/pieces
			to = lo + sort.Search(hi-lo, func(i int) bool { return indptr[lo+i]+lo+i >= target })
		}
		if from < to {
			fn(from, to)
		}
		from = to
	}
}
