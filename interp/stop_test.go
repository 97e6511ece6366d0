package interp

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// interrupt runs cell and cancels it after 100 ms; it must end as
// interrupted.
func interrupt(t *testing.T, s *Session, cell string) *Error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(100*time.Millisecond, cancel)
	done := make(chan error, 1)
	go func() {
		_, err := s.Eval(ctx, cell)
		done <- err
	}()
	select {
	case err := <-done:
		var e *Error
		if !errors.As(err, &e) || e.Name != nameInterrupted {
			t.Fatalf("Eval(%q) after cancel = %v, want an *Error named %q", cell, err, nameInterrupted)
		}
		return e
	case <-time.After(30 * time.Second):
		t.Fatalf("Eval(%q) did not return within 30 s of the cancel", cell)
	}
	return nil
}

// TestInterruptKeepsFunctions interrupts cells and calls functions defined
// before: they must still compute (issue 20, 2: after yaegi's stop, tri(3)
// was 0 with status ok, function literals in variables too, after a
// `for {}` and after a time.Sleep alike).
func TestInterruptKeepsFunctions(t *testing.T) {
	s := newTestSession(t, Options{})
	mustEval(t, s, "import \"time\"\nfunc tri(x int) int { return 3 * x }\ndouble := func(x int) int { return 2 * x }\nfunc viaChan(x int) int {\n\tc := make(chan int, 1)\n\tc <- x\n\tv := <-c\n\treturn v\n}")
	check := func(after string, exprs map[string]string) {
		t.Helper()
		for expr, want := range exprs {
			if got := mustEval(t, s, expr).Value.Text(); got != want {
				t.Errorf("after %s: %s = %q, want %q", after, expr, got, want)
			}
		}
	}
	all := map[string]string{"tri(3)": "9", "double(3)": "6", "viaChan(4)": "4"}
	check("definition", all)
	interrupt(t, s, "for {\n}")
	check("interrupting for {}", all)
	interrupt(t, s, "func spin() {\n\tfor {\n\t}\n}\nspin()")
	check("interrupting a spinning function", all)
	mustEval(t, s, "func later(x int) int { return tri(x) + 1 }")
	interrupt(t, s, "for {\n}")
	check("a third interrupt", map[string]string{"later(3)": "10", "tri(3)": "9"})
	// A cell waiting in a channel operation or a compiled call does not
	// see the changed run id: the session closes the cell's done channel
	// as yaegi's stop does, and the earlier functions still compute.
	interrupt(t, s, "block := make(chan int)\n<-block")
	check("interrupting a channel receive", all)
	if e := interrupt(t, s, "time.Sleep(400 * time.Millisecond)"); e.Value != "the cell was interrupted" {
		t.Errorf("interrupting time.Sleep(400ms): %s", e.Value)
	}
	check("interrupting time.Sleep", all)
}

// BenchmarkInterruptLatency measures the time from cancelling a `for {}`
// cell to Eval's return with 0, 10,000 and 50,000 goroutines blocked on a
// channel (issue 20, 4: the stop waited by dumping every goroutine's stack
// every 5 ms, 1.2–2.6 s at 10,000).
func BenchmarkInterruptLatency(b *testing.B) {
	for _, n := range []int{0, 10000, 50000} {
		b.Run(fmt.Sprintf("goroutines=%d", n), func(b *testing.B) {
			s := newTestSession(b, Options{})
			mustEval(b, s, fmt.Sprintf("block := make(chan int)\nfor i := 0; i < %d; i++ {\n\tgo func() { <-block }()\n}", n))
			var total time.Duration
			for b.Loop() {
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() {
					_, err := s.Eval(ctx, "for {\n}")
					done <- err
				}()
				time.Sleep(20 * time.Millisecond)
				start := time.Now()
				cancel()
				if err := <-done; err == nil {
					b.Fatal("for {} ended without an error")
				}
				total += time.Since(start)
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/interrupt")
			mustEval(b, s, "close(block)")
		})
	}
}
