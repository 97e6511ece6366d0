package interp

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestInterruptReportsGoroutines interrupts a cell whose goroutine waits
// where an interrupt cannot reach (a second Lock of a mutex): the cell
// stops, and its error says that the goroutine still runs.
func TestInterruptReportsGoroutines(t *testing.T) {
	s := newTestSession(t, Options{})
	mustEval(t, s, "import (\"sync\"; \"time\")")
	// The count is the process's: let the goroutines of earlier tests end.
	for n, stable := runtime.NumGoroutine(), 0; stable < 10; stable++ {
		time.Sleep(20 * time.Millisecond)
		if m := runtime.NumGoroutine(); m != n {
			n, stable = m, 0
		}
	}
	// The goroutine blocks on a mutex of its own (no interrupt reaches a
	// Lock), reading nothing of the global frame that a later cell may
	// reallocate (a race in yaegi that -race reports).
	e := interrupt(t, s, "go func() {\n\tmu := new(sync.Mutex)\n\tmu.Lock()\n\tmu.Lock()\n}()\ntime.Sleep(time.Minute)")
	if tb := strings.Join(e.Traceback, "\n"); !strings.Contains(tb, "1 goroutine that the cell started is still running") {
		t.Errorf("interrupted cell's traceback = %q, want it to report the goroutine left behind", tb)
	}
	// The goroutine stays blocked: woken while a later cell compiles, it
	// would read the global frame that yaegi reallocates (a race in yaegi).
	e = interrupt(t, s, "time.Sleep(time.Minute)")
	if len(e.Traceback) != 1 {
		t.Errorf("a cell that left no goroutine: traceback %q, want one line", e.Traceback)
	}
}
