package kernel_test

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
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

// TestUsageRequest: jupyter-resource-usage's usage_request on the control
// channel gets ipykernel 7's usage_reply: the memory and CPU of the kernel
// and its worker, and of the host.
func TestUsageRequest(t *testing.T) {
	c := start(t, "tcp")
	c.Execute("1 + 1", nil) // the worker is up
	var content map[string]any
	for range 2 {
		id := c.Send("control", "usage_request", map[string]any{})
		reply, err := c.Reply("control", id)
		if err != nil {
			t.Fatal(err)
		}
		if reply.MsgType != "usage_reply" {
			t.Fatalf("usage_request answered %s", reply.MsgType)
		}
		content = reply.Content
	}
	if content["pid"] != float64(os.Getpid()) || content["hostname"] == "" {
		t.Errorf("usage_reply pid, hostname = %v, %v; want %d and a name", content["pid"], content["hostname"], os.Getpid())
	}
	if n, _ := content["cpu_count"].(float64); n < 1 {
		t.Errorf("usage_reply cpu_count = %v, want >= 1", content["cpu_count"])
	}
	if runtime.GOOS != "linux" {
		return
	}
	// The worker's memory counts: more than this process alone holds.
	self := kernelMemoryOfSelf(t)
	if m, _ := content["kernel_memory"].(float64); m <= self {
		t.Errorf("usage_reply kernel_memory = %v, want more than this process's %v (the worker counts)", m, self)
	}
	if _, ok := content["kernel_cpu"].(float64); !ok {
		t.Errorf("usage_reply kernel_cpu = %v, want a number", content["kernel_cpu"])
	}
	vm, _ := content["host_virtual_memory"].(map[string]any)
	if total, _ := vm["total"].(float64); total <= 0 {
		t.Errorf("usage_reply host_virtual_memory = %v, want a total", vm)
	}
}

func kernelMemoryOfSelf(t *testing.T) float64 {
	b, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		b, _ = os.ReadFile("/proc/self/status")
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && (f[0] == "Pss:" || f[0] == "VmRSS:") {
			n, _ := strconv.ParseFloat(f[1], 64)
			return n * 1024
		}
	}
	t.Skip("no memory figure in /proc/self")
	return 0
}
