package interp

import (
	"bytes"
	"strings"
	"testing"
)

// TestInterruptSelectInFunction interrupts a cell blocked in a select of
// a function, which runs through the runtime's Select (the rewrite pass
// selects): the cell stops and the session is not stuck, while a
// goroutine of an earlier cell blocked in a select of a function waits
// on and still receives afterwards. With yaegi's select the cell stayed
// in a compiled call until the session gave up (Stuck), and the earlier
// goroutine was gone.
func TestInterruptSelectInFunction(t *testing.T) {
	var out bytes.Buffer
	s := newTestSession(t, Options{Stdout: &out, Stderr: &out})
	mustEval(t, s, `import "fmt"`)
	mustEval(t, s, "func waiter(in, out chan int) {\n\tselect {\n\tcase v := <-in:\n\t\tout <- v + 1\n\t}\n}\n"+
		"in, out := make(chan int), make(chan int, 1)\ngo waiter(in, out)")
	interrupt(t, s, "func block(c chan int) int {\n\tselect {\n\tcase v := <-c:\n\t\treturn v\n\t}\n}\nblock(nil)")
	if s.Stuck() {
		t.Fatal("a cell interrupted in a select of a function left the session stuck")
	}
	mustEval(t, s, "in <- 41\nfmt.Println(<-out)")
	if got := strings.TrimSpace(out.String()); got != "42" {
		t.Errorf("the earlier goroutine's select after the interrupt: output %q, want 42", got)
	}
}
