package kernel_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/kernel/kerneltest"
)

// TestExitPayload: exit in jupyter console asks the frontend to quit, as
// IPython's exit does, and runs nothing.
func TestExitPayload(t *testing.T) {
	c := start(t, "tcp")
	for _, code := range []string{"exit", "quit()"} {
		reply, out := c.Execute(code, nil)
		if reply.Content["status"] != "ok" {
			t.Fatalf("%s: reply %v, want ok", code, reply.Content)
		}
		want := `[map[keepkernel:false source:ask_exit]]`
		if got := fmt.Sprint(reply.Content["payload"]); got != want {
			t.Errorf("%s: payload %s, want %s", code, got, want)
		}
		if errs := kerneltest.Filter(out, "error"); len(errs) != 0 {
			t.Errorf("%s: errors %v, want none", code, errs)
		}
	}
	if reply, _ := c.Execute("1 + 1", nil); fmt.Sprint(reply.Content["payload"]) != "[]" {
		t.Errorf("1 + 1: payload %v, want none", reply.Content["payload"])
	}
}

// TestErrorCountAfterRestart: errors name the cell by the execution count
// the frontend shows, also on a worker that started after a restart.
func TestErrorCountAfterRestart(t *testing.T) {
	c := start(t, "tcp")
	c.Execute("a := 1", nil)
	c.Execute("%restart", nil)
	c.Execute("b := 2", map[string]any{"silent": true}) // no count of its own
	reply, out := c.Execute("b := 2\nnope + 1", nil)
	n := reply.Content["execution_count"]
	want := fmt.Sprintf("cell[%v]:2:", n)
	errs := kerneltest.Filter(out, "error")
	if len(errs) != 1 || !strings.Contains(fmt.Sprint(errs[0].Content["traceback"]), want) {
		t.Errorf("error of In [%v] = %v, want a traceback at %s", n, errs, want)
	}
}
