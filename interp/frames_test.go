package interp

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// growthCells define functions in each way a notebook does (declared,
// redefined, assigned from a literal at the top level, a literal using a
// variable of its cell) and variables.
var growthCells = []string{
	"func f%[1]d(x int) int { return x + %[1]d }",
	"func g(x int) int { return x * %[1]d }",
	"h := func(a int) int { return a - %[1]d }\nacc = h(acc)",
	"v%[1]d := g(%[1]d) + f%[1]d(1)",
	"var w%[1]d = func() int { return %[1]d }\nacc = acc + w%[1]d()",
	"x := %[1]d\nk := func() int { return x }\nacc = acc + k()",
}

// TestMemoryGrowsLinearly checks that what a session keeps per cell does
// not grow with the session's length (issue 20, 6): the live heap's growth
// over the second n cells must be about that over the first n, not the
// three times of a quadratic growth (each function literal copied the
// whole global frame). BenchmarkSoak prints the curve over 10,000 cells.
func TestMemoryGrowsLinearly(t *testing.T) {
	const n = 500
	s := newTestSession(t, Options{Stdout: io.Discard, Stderr: io.Discard})
	mustEval(t, s, "var acc int")
	next := 0
	run := func(cells int) float64 {
		for range cells {
			mustEval(t, s, fmt.Sprintf(growthCells[next%len(growthCells)], next/len(growthCells)))
			next++
		}
		return float64(liveHeap())
	}
	h0 := run(2 * len(growthCells)) // after what the first cells load once
	h1 := run(n)
	h2 := run(n)
	runtime.KeepAlive(s)
	first, second := h1-h0, h2-h1
	t.Logf("live heap: %.1f, %.1f, %.1f MiB (%.0f, %.0f bytes a cell)", h0/(1<<20), h1/(1<<20), h2/(1<<20), first/n, second/n)
	if first <= 0 {
		t.Fatalf("the live heap did not grow over %d cells (%.0f bytes): the measurement is broken", n, first)
	}
	if r := second / first; r > 1.5 {
		t.Errorf("growth over cells %d..%d / growth over cells 0..%d = %.2f, want about 1 (linear), not 3 (quadratic)", n, 2*n, n, r)
	}
}

// TestPendingNameInstantiated declares a generic function whose body
// names something no cell declares (bt for b: the session accepts it,
// since a later cell may declare the name) and a generic function that
// calls it, then calls the second from a function declaration: the call
// instantiates both bodies, and the cell fails with Go's compile error
// at the name, not with yaegi's compiler panic ("CFG post-order panic",
// FuzzCells). Once a cell declares the first function again, correctly,
// the call runs. A method of a generic type likewise.
func TestPendingNameInstantiated(t *testing.T) {
	var out strings.Builder
	s := newTestSession(t, Options{Stdout: &out, Stderr: io.Discard})
	mustEval(t, s, `import "fmt"
func Max[T ~int | ~string](a, b T) T {
	if a > bt {
		return a
	}
	return b
}
func Max3[T ~int | ~string](a, b, c T) T { return Max(Max(a, b), c) }`)
	e := evalErr(t, s, `func show() { fmt.Println(Max3("x", "z", "y")) }
show()`)
	if e.Name != nameCompile || e.Value != "undefined: bt" || len(e.Traceback) == 0 || !strings.HasPrefix(e.Traceback[0], "cell[1]:3:9: ") {
		t.Errorf("the call of a generic function with an undefined name failed with %s: %q %q, want a compile error undefined: bt at cell[1]:3:9", e.Name, e.Value, e.Traceback)
	}
	mustEval(t, s, `func Max[T ~int | ~string](a, b T) T {
	if a > b {
		return a
	}
	return b
}`)
	out.Reset()
	mustEval(t, s, `fmt.Println(Max3("x", "z", "y"))`)
	if got := out.String(); got != "z\n" {
		t.Errorf("after Max was declared again: printed %q, want \"z\\n\"", got)
	}
	// A generic type's method: yaegi failed at run time (index out of
	// range [1] with length 0).
	mustEval(t, s, "type Box[T any] struct{ v T }\nfunc (b Box[T]) Get() T { return ident(b.v) }")
	e = evalErr(t, s, "b := Box[int]{1}\nfmt.Println(b.Get())")
	if e.Name != nameCompile || e.Value != "undefined: ident" || len(e.Traceback) == 0 || !strings.HasPrefix(e.Traceback[0], "cell[5]:2:34: ") {
		t.Errorf("the call of a generic type's method with an undefined name failed with %s: %q %q, want a compile error undefined: ident at cell[5]:2:34", e.Name, e.Value, e.Traceback)
	}
}
