package parallel

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// covered checks that the ranges handed to a loop cover [0, n) once.
type covered struct {
	mu   sync.Mutex
	hits []int
}

func (c *covered) add(lo, hi int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := lo; i < hi; i++ {
		c.hits[i]++
	}
}

func (c *covered) check(t *testing.T, name string) {
	t.Helper()
	for i, h := range c.hits {
		if h != 1 {
			t.Fatalf("%s: index %d covered %d times, want 1", name, i, h)
		}
	}
}

func TestSetThreads(t *testing.T) {
	defer SetThreads(SetThreads(0))
	if got, want := Threads(), runtime.GOMAXPROCS(0); got != want {
		t.Errorf("default Threads() = %d, want GOMAXPROCS %d", got, want)
	}
	if prev := SetThreads(3); prev != runtime.GOMAXPROCS(0) {
		t.Errorf("SetThreads(3) = %d, want the previous %d", prev, runtime.GOMAXPROCS(0))
	}
	if Threads() != 3 {
		t.Errorf("Threads() = %d after SetThreads(3)", Threads())
	}
	for _, n := range []int{0, -5} {
		SetThreads(n)
		if got := Threads(); got != runtime.GOMAXPROCS(0) {
			t.Errorf("SetThreads(%d): Threads() = %d, want GOMAXPROCS %d", n, got, runtime.GOMAXPROCS(0))
		}
	}
}

func TestLoopsCoverAndCount(t *testing.T) {
	defer SetThreads(SetThreads(0))
	// A power-law-ish CSR: row i has i%17 edges, row 0 has many.
	indptr := []int{0, 5000}
	for i := 1; i < 3000; i++ {
		indptr = append(indptr, indptr[len(indptr)-1]+i%17)
	}
	rows := len(indptr) - 1
	for _, th := range []int{1, 2, 5} {
		SetThreads(th)
		cases := []struct {
			name        string
			n           int
			run         func(c *covered)
			wantWorkers int64
		}{
			{"For", 10000, func(c *covered) { For(10000, 10, c.add) }, int64(th)},
			{"For/small", 10, func(c *covered) { For(10, 100, c.add) }, 1},
			{"Steal", 37, func(c *covered) { Steal(37, func(i int) { c.add(i, i+1) }) }, int64(th)},
			{"Rows", rows, func(c *covered) { Rows(indptr, 1<<20, c.add) }, int64(th)},
			{"Rows/serial", rows, func(c *covered) { Rows(indptr, 10, c.add) }, 1},
			{"RowsByWorker", rows, func(c *covered) {
				seen := make([]atomic.Int32, Workers(indptr, 1))
				RowsByWorker(indptr, 1, func(lo, hi, w int) { seen[w].Add(1); c.add(lo, hi) })
				for w := range seen {
					if seen[w].Load() != 1 {
						t.Errorf("RowsByWorker: worker %d called %d times", w, seen[w].Load())
					}
				}
			}, int64(th)},
		}
		for _, tc := range cases {
			c := &covered{hits: make([]int, tc.n)}
			before := ReadStats()
			tc.run(c)
			after := ReadStats()
			c.check(t, tc.name)
			if d := after.Loops - before.Loops; d != 1 {
				t.Errorf("threads %d: %s counted %d loops, want 1", th, tc.name, d)
			}
			if d := after.Workers - before.Workers; d != tc.wantWorkers {
				t.Errorf("threads %d: %s used %d workers, want %d", th, tc.name, d, tc.wantWorkers)
			}
		}
	}
}

func TestCancelCheck(t *testing.T) {
	defer SetThreads(SetThreads(2))
	errStop := errors.New("interrupted")
	var calls atomic.Int64
	prev := SetCancelCheck(func() error {
		if calls.Add(1) > 3 {
			return errStop
		}
		return nil
	})
	defer func() { SetCancelCheck(prev) }()
	var ran atomic.Int64
	func() {
		defer func() {
			r := recover()
			err, ok := r.(error)
			var c *Canceled
			if !ok || !errors.As(err, &c) || !errors.Is(err, errStop) {
				t.Fatalf("Steal under a failing cancel check panicked with %v, want a *Canceled wrapping %v", r, errStop)
			}
		}()
		Steal(1000, func(int) { ran.Add(1) })
		t.Fatal("Steal returned although the cancel check failed")
	}()
	if n := ran.Load(); n < 1 || n > 3 {
		t.Errorf("Steal ran %d chunks before stopping, want 1 to 3 (the check passed 3 times)", n)
	}
	SetCancelCheck(nil)
	ran.Store(0)
	Steal(1000, func(int) { ran.Add(1) })
	if ran.Load() != 1000 {
		t.Errorf("Steal without a check ran %d chunks, want 1000", ran.Load())
	}
}
