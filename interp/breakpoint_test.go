package interp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// debugCell runs cell under the debugger with breakpoints on lines and
// returns its stops through the channel; the cell's error comes on done.
// skipRace skips a debugger test under -race, where sessions are not
// debuggable (internal/debug).
func skipRace(t testing.TB) {
	t.Helper()
	if raceEnabled {
		t.Skip("yaegi's debugger is not race-free: sessions are not debuggable under -race")
	}
}

func debugCell(t *testing.T, s *Session, n int, cell string, lines ...int) (stops <-chan *Stop, done <-chan error) {
	t.Helper()
	st := make(chan *Stop, 16)
	s.SetDebug(&DebugOptions{
		Breakpoints: func(m int, code string) []int {
			if m == n && code == cell {
				return lines
			}
			return nil
		},
		Stopped: func(x *Stop) { st <- x },
	})
	d := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		_, err := s.EvalCount(ctx, n, cell)
		d <- err
	}()
	return st, d
}

func nextStop(t *testing.T, stops <-chan *Stop, done <-chan error) *Stop {
	t.Helper()
	select {
	case st := <-stops:
		return st
	case err := <-done:
		t.Fatalf("the cell ended (%v) without stopping", err)
	case <-time.After(30 * time.Second):
		t.Fatal("no stop")
	}
	return nil
}

func varValue(vs []Variable, name string) (string, bool) {
	for _, v := range vs {
		if v.Name == name {
			return fmt.Sprint(v.Value.Interface()), true
		}
	}
	return "", false
}

func TestDebugBreakpointAndSteps(t *testing.T) {
	skipRace(t)
	var out bytes.Buffer
	s := newTestSession(t, Options{Stdout: &out, Stderr: &out, Debuggable: true})
	mustEval(t, s, `import "fmt"`)
	mustEval(t, s, "func double(v int) int {\n\tw := v * 2\n\treturn w\n}")
	mustEval(t, s, "total := 40")
	cell := "x := total + 1\ny := x + 1\nz := double(y)\nfmt.Println(x, y, z)"
	stops, done := debugCell(t, s, 4, cell, 2)

	st := nextStop(t, stops, done)
	if st.Reason != "breakpoint" || len(st.Frames) == 0 || st.Frames[0].Cell != 4 || st.Frames[0].Line != 2 {
		t.Fatalf("first stop: %s at %+v, want a breakpoint at cell 4 line 2", st.Reason, st.Frames)
	}
	if v, ok := varValue(st.Globals(), "total"); !ok || v != "40" {
		t.Errorf("Globals: total = %q (%v), want 40", v, ok)
	}
	if v, ok := varValue(st.Globals(), "x"); !ok || v != "41" {
		t.Errorf("Globals: x = %q (%v), want 41", v, ok)
	}
	if _, ok := varValue(st.Globals(), "double"); ok {
		t.Errorf("Globals lists the function double")
	}

	if err := st.Resume(StepOver); err != nil {
		t.Fatal(err)
	}
	if err := st.Resume(Continue); err != ErrResumed {
		t.Errorf("second Resume = %v, want ErrResumed", err)
	}
	st = nextStop(t, stops, done)
	if st.Reason != "step" || st.Frames[0].Line != 3 {
		t.Fatalf("after step over: %s at %+v, want line 3", st.Reason, st.Frames)
	}

	if err := st.Resume(StepIn); err != nil {
		t.Fatal(err)
	}
	st = nextStop(t, stops, done)
	if st.Frames[0].Cell != 2 || st.Frames[0].Line != 2 {
		t.Fatalf("after step in: %+v, want cell 2 line 2 (in double)", st.Frames)
	}
	if st.Frames[0].Name != "double" {
		t.Errorf("frame name %q, want double", st.Frames[0].Name)
	}
	if v, ok := varValue(st.Locals(0), "v"); !ok || v != "42" {
		t.Errorf("Locals(0): v = %q (%v), want 42; locals %v", v, ok, st.Locals(0))
	}

	if err := st.Resume(StepOut); err != nil {
		t.Fatal(err)
	}
	st = nextStop(t, stops, done)
	if st.Frames[0].Cell != 4 {
		t.Fatalf("after step out: %+v, want back in cell 4", st.Frames)
	}
	if err := st.Resume(Continue); err != nil {
		t.Fatal(err)
	}
	if err := recvWithin(t, done, time.Minute, "the debugged cell's end after Continue"); err != nil {
		t.Fatalf("cell: %v", err)
	}
	if got, want := out.String(), "41 42 84\n"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}

	// Off again: the next cell runs as before, without stopping.
	s.SetDebug(nil)
	mustEval(t, s, "fmt.Println(double(total))")
	if got, want := out.String(), "41 42 84\n80\n"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
}

// TestDebugBreakpointInEarlierCell sets a breakpoint in the body of a
// function of cell 2 and runs a cell without breakpoints that calls it.
func TestDebugBreakpointInEarlierCell(t *testing.T) {
	skipRace(t)
	var out bytes.Buffer
	s := newTestSession(t, Options{Stdout: &out, Stderr: &out, Debuggable: true})
	mustEval(t, s, `import "fmt"`)
	def := "func triple(v int) int {\n\tw := v * 3\n\treturn w\n}"
	mustEval(t, s, def)
	// A closure made by a call, while debugging is on.
	st := make(chan *Stop, 4)
	s.SetDebug(&DebugOptions{
		Breakpoints: func(n int, code string) []int {
			if code == def {
				return []int{3}
			}
			return nil
		},
		Stopped: func(x *Stop) { st <- x },
	})
	mustEval(t, s, "mk := func(n int) func() int { return func() int { return triple(n) } }\nf := mk(5)")
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err := s.Eval(ctx, "fmt.Println(f())")
		done <- err
	}()
	stop := nextStop(t, st, done)
	if stop.Frames[0].Cell != 2 || stop.Frames[0].Line != 3 {
		t.Fatalf("stop at %+v, want cell 2 line 3 (in triple)", stop.Frames)
	}
	if v, ok := varValue(stop.Locals(0), "w"); !ok || v != "15" {
		t.Errorf("Locals(0): w = %q (%v), want 15; locals %v", v, ok, stop.Locals(0))
	}
	if err := stop.Resume(Continue); err != nil {
		t.Fatal(err)
	}
	if err := recvWithin(t, done, time.Minute, "the debugged cell's end after Continue"); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "15\n" {
		t.Errorf("output %q, want %q", got, "15\n")
	}
}

func TestDebugInterruptWhileStopped(t *testing.T) {
	skipRace(t)
	var out bytes.Buffer
	s := newTestSession(t, Options{Stdout: &out, Stderr: &out, Debuggable: true})
	mustEval(t, s, `import "fmt"`)
	cell := "a := 1\nfmt.Println(a)"
	st := make(chan *Stop, 1)
	s.SetDebug(&DebugOptions{
		Breakpoints: func(int, string) []int { return []int{2} },
		Stopped:     func(x *Stop) { st <- x },
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.Eval(ctx, cell)
		done <- err
	}()
	nextStop(t, st, done)
	cancel()
	select {
	case err := <-done:
		var e *Error
		if !errors.As(err, &e) || e.Name != nameInterrupted {
			t.Fatalf("interrupted cell: %v, want %q", err, nameInterrupted)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the stopped cell did not end on interrupt")
	}
	s.SetDebug(nil)
	mustEval(t, s, "fmt.Println(1 + 1)")
	if got := out.String(); got != "2\n" {
		t.Errorf("output %q, want %q", got, "2\n")
	}
}

// BenchmarkDefineFunction measures a cell that defines a function, in a
// session made debuggable or not (its function is made under the
// debugger when debuggable) and with debugging off.
func BenchmarkDefineFunction(b *testing.B) {
	for _, debuggable := range []bool{false, true} {
		b.Run(fmt.Sprintf("debuggable=%v", debuggable), func(b *testing.B) {
			s := newTestSession(b, Options{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Debuggable: debuggable})
			b.ReportAllocs()
			for b.Loop() {
				mustEval(b, s, "func f(v int) int { return v + 1 }")
			}
		})
	}
}

// TestDebugStaleFunction calls, under the debugger, a literal made while
// debugging was off: a clear error, and the session goes on.
func TestDebugStaleFunction(t *testing.T) {
	skipRace(t)
	var out bytes.Buffer
	s := newTestSession(t, Options{Stdout: &out, Stderr: &out, Debuggable: true})
	mustEval(t, s, `import "fmt"`)
	mustEval(t, s, "h := func(a int) int { return a + 1 }")
	s.SetDebug(&DebugOptions{Breakpoints: func(int, string) []int { return nil }, Stopped: func(x *Stop) { go x.Resume(Continue) }})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := s.Eval(ctx, "fmt.Println(h(1))")
	var e *Error
	if !errors.As(err, &e) || e.Name != "debugger" {
		t.Fatalf("calling a literal made with the debugger off: %v, want a debugger error", err)
	}
	mustEval(t, s, "h = func(a int) int { return a + 2 }")
	mustEval(t, s, "fmt.Println(h(1))")
	if got := out.String(); got != "3\n" {
		t.Errorf("output %q, want %q", got, "3\n")
	}
}
