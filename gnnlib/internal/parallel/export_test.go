package parallel

import (
	"sort"
	"sync"
)

// SetOldCut makes For, Rows and RowsByWorker cut their work as they did
// before the cancel check ran per chunk (one range per worker for For,
// four blocks per worker for Rows, one whole range per worker for
// RowsByWorker), or, with old false, as they do now. The benchmark of the
// chunking runs both in one process.
func SetOldCut(old bool) {
	if old {
		forHook, rowsHook, rowsByWorkerHook = forOld, rowsOld, rowsByWorkerOld
	} else {
		forHook, rowsHook, rowsByWorkerHook = nil, nil, nil
	}
}

// ChunksPerWorker is chunksPerWorker, for the tests.
const ChunksPerWorker = chunksPerWorker

func forOld(n, grain int, f func(lo, hi int)) {
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

func rowsOld(indptr []int, work int, fn func(lo, hi int)) {
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

func rowsByWorkerOld(indptr []int, minWork int, fn func(lo, hi, w int)) {
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
