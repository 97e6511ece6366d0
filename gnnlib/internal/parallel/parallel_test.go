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
				// Each worker's pieces come in order, each starting
				// where the one before ended.
				calls := make([]int, Workers(indptr, 1))
				ends := make([]int, len(calls))
				RowsByWorker(indptr, 1, func(lo, hi, w int) {
					if calls[w] > 0 && lo != ends[w] {
						t.Errorf("RowsByWorker: worker %d got rows [%d, %d) after a piece ending at %d", w, lo, hi, ends[w])
					}
					calls[w]++
					ends[w] = hi
					c.add(lo, hi)
				})
				for w, n := range calls {
					if n < 1 || n > ChunksPerWorker {
						t.Errorf("RowsByWorker: worker %d called %d times, want 1 to %d", w, n, ChunksPerWorker)
					}
				}
			}, int64(th)},
			{"RowsByWorker/small", rows, func(c *covered) {
				RowsByWorker(indptr, 1<<30, func(lo, hi, w int) {
					if lo != 0 || hi != rows || w != 0 {
						t.Errorf("RowsByWorker below minWork: fn(%d, %d, %d), want one call fn(0, %d, 0)", lo, hi, w, rows)
					}
					c.add(lo, hi)
				})
			}, 1},
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

// TestCancelMidLoop checks that each loop, on one thread and on several,
// stops within about one chunk per worker of its cancel check failing,
// instead of running its whole range: a 4000² MatMul is one For whose
// ranges took seconds each when they were one a worker (issue 28).
func TestCancelMidLoop(t *testing.T) {
	defer SetThreads(SetThreads(0))
	errStop := errors.New("interrupted")
	indptr := []int{0}
	for i := 0; i < 100000; i++ {
		indptr = append(indptr, indptr[i]+i%9)
	}
	rows := len(indptr) - 1
	for _, th := range []int{1, 3} {
		SetThreads(th)
		loops := []struct {
			name string
			n    int // items the loop covers
			run  func(f func(lo, hi int))
		}{
			{"For", 100000, func(f func(lo, hi int)) { For(100000, 1, f) }},
			{"Rows", rows, func(f func(lo, hi int)) { Rows(indptr, 1<<30, f) }},
			{"RowsByWorker", rows, func(f func(lo, hi int)) {
				RowsByWorker(indptr, 1, func(lo, hi, _ int) { f(lo, hi) })
			}},
		}
		for _, l := range loops {
			var fail atomic.Bool
			prev := SetCancelCheck(func() error {
				if fail.Load() {
					return errStop
				}
				return nil
			})
			var done, calls atomic.Int64
			r := catch(func() {
				l.run(func(lo, hi int) {
					// The check fails during the first range run.
					fail.Store(true)
					calls.Add(1)
					done.Add(int64(hi - lo))
				})
			})
			SetCancelCheck(prev)
			var c *Canceled
			if err, ok := r.(error); !ok || !errors.As(err, &c) || !errors.Is(err, errStop) {
				t.Errorf("threads %d: %s under a failing check panicked with %v, want a *Canceled wrapping %v", th, l.name, r, errStop)
				continue
			}
			// Each worker finishes the range it had begun.
			if calls.Load() > int64(th) || done.Load() == int64(l.n) {
				t.Errorf("threads %d: %s ran %d ranges (%d of %d items) after the check failed, want at most %d and not all", th, l.name, calls.Load(), done.Load(), l.n, th)
			}
		}
	}
}

// TestStopping checks that a range which returns early on Stopping makes
// its loop panic with *Canceled, also when it was the loop's last range:
// its result is incomplete and must not pass for a finished one.
func TestStopping(t *testing.T) {
	defer SetThreads(SetThreads(0))
	errStop := errors.New("interrupted")
	for _, th := range []int{1, 2} {
		SetThreads(th)
		if Stopping() {
			t.Fatal("Stopping() = true with no check installed")
		}
		var fail atomic.Bool
		prev := SetCancelCheck(func() error {
			if fail.Load() {
				return errStop
			}
			return nil
		})
		r := catch(func() {
			For(10, 10, func(lo, hi int) { // one range
				fail.Store(true)
				if !Stopping() {
					t.Errorf("threads %d: Stopping() = false while the check fails", th)
				}
			})
		})
		SetCancelCheck(prev)
		if err, ok := r.(error); !ok || !errors.Is(err, errStop) {
			t.Errorf("threads %d: a one-range For whose range stopped early panicked with %v, want a *Canceled wrapping %v", th, r, errStop)
		}
	}
}

// catch runs f and returns what it panicked with.
func catch(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}
