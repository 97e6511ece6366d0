package client_test

import (
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// TestStackOverflowReplays: unbounded recursion in a compiled function
// (or an interpreted one, where the tier cannot run) ends the worker; the
// session comes back by itself, with the cells that had succeeded
// replayed and named in the cell's error.
func TestStackOverflowReplays(t *testing.T) {
	c, out := start(t)
	exec(t, c, "import \"fmt\"\nx := 6")
	exec(t, c, "func down(n int) int {\n\treturn down(n+1) + 1\n}")
	exec(t, c, "y := x * 7")
	out.take()
	exec(t, c, "%compiled")
	got := out.take()
	if !strings.Contains(got, "down  compiled") && !strings.Contains(got, "compiled tier: off") {
		t.Fatalf("%%compiled printed\n%s\nwant down compiled (or the tier off in this process)", got)
	}
	compiled := strings.Contains(got, "down  compiled")
	// A small limit keeps the recursion short (the default is 1 GB).
	_, ce := exec(t, c, "import \"runtime/debug\"\ndebug.SetMaxStack(32 << 20)\nfmt.Println(down(0))")
	if ce == nil || ce.Name != workerproto.EnameWorkerCrashed || !strings.HasPrefix(ce.Value, "stack overflow") {
		t.Fatalf("the overflowing cell's error = %+v, want a stack overflow", ce)
	}
	// Compiled, the runtime's trace has the cell's frames: the error
	// names the function and the line of the recursing call.
	if want := "stack overflow (infinite recursion?) in down at cell[2]:1, called from cell[2]:2;"; compiled && !strings.HasPrefix(ce.Value, want) {
		t.Errorf("the overflowing cell's error value %q, want it to start %q", ce.Value, want)
	}
	if !strings.Contains(ce.Value, "its 4 earlier cells replayed") {
		t.Errorf("error value %q, want it to say that 4 cells (with %%compiled) were replayed", ce.Value)
	}
	tb := strings.Join(ce.Traceback, "\n")
	for _, want := range []string{"1. import \"fmt\" …", "2. func down(n int) int { …", "3. y := x * 7", "the state is restored"} {
		if !strings.Contains(tb, want) {
			t.Errorf("traceback\n%s\nwant a line with %q", tb, want)
		}
	}
	if c.Crashes() != 1 {
		t.Errorf("Crashes() = %d, want 1", c.Crashes())
	}
	out.take()
	if got, ce := exec(t, c, "y"); ce != nil || got != "42" {
		t.Errorf("y after the overflow = %q, %+v, want 42", got, ce)
	}
	// down is declared again: a bounded call of it works.
	if _, ce := exec(t, c, "func up(n int) int {\n\tif n == 0 {\n\t\treturn 0\n\t}\n\treturn up(n-1) + 1\n}\nfmt.Println(up(10))"); ce != nil {
		t.Errorf("a cell after the replay: %+v", ce)
	}
	if got := out.take(); got != "10\n" {
		t.Errorf("printed %q, want 10", got)
	}
}
