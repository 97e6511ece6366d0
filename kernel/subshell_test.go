package kernel_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/kernel/kerneltest"
)

func control(t *testing.T, c *kerneltest.Client, msgType string, content map[string]any) kerneltest.Message {
	t.Helper()
	id := c.Send("control", msgType, content)
	r, err := c.Reply("control", id)
	if err != nil {
		t.Fatalf("%s: %v", msgType, err)
	}
	return r
}

func createSubshell(t *testing.T, c *kerneltest.Client) string {
	t.Helper()
	r := control(t, c, "create_subshell_request", map[string]any{})
	id, _ := r.Content["subshell_id"].(string)
	if r.MsgType != "create_subshell_reply" || r.Content["status"] != "ok" || id == "" {
		t.Fatalf("create_subshell_request = %s %v, want an ok create_subshell_reply with a subshell_id", r.MsgType, r.Content)
	}
	return id
}

func listSubshells(t *testing.T, c *kerneltest.Client) []string {
	t.Helper()
	r := control(t, c, "list_subshell_request", map[string]any{})
	var ids []string
	l, _ := r.Content["subshell_id"].([]any)
	for _, id := range l {
		ids = append(ids, fmt.Sprint(id))
	}
	slices.Sort(ids)
	return ids
}

func executeContent(code string) map[string]any {
	return map[string]any{"code": code, "silent": false, "store_history": true, "user_expressions": map[string]any{}, "allow_stdin": false, "stop_on_error": true}
}

// TestSubshellLifecycle creates, lists, uses and deletes subshells, and
// sends to one that does not exist.
func TestSubshellLifecycle(t *testing.T) {
	c := start(t, "tcp")
	info := control(t, c, "kernel_info_request", map[string]any{})
	if f := fmt.Sprint(info.Content["supported_features"]); !strings.Contains(f, "kernel subshells") {
		t.Errorf("supported_features = %s, want kernel subshells among them", f)
	}
	a, b := createSubshell(t, c), createSubshell(t, c)
	want := []string{a, b}
	slices.Sort(want)
	if got := listSubshells(t, c); !slices.Equal(got, want) {
		t.Errorf("list_subshell_reply = %q, want %q", got, want)
	}

	id := c.SendTo("shell", a, "execute_request", executeContent(`x := 40 + 2; fmt.Println("in a", x)`))
	r, err := c.Reply("shell", id)
	if err != nil || r.Content["status"] != "ok" {
		t.Fatalf("execute on subshell: %v %v", r.Content, err)
	}
	out, err := c.IOPubUntilIdle(id)
	if err != nil {
		t.Fatal(err)
	}
	if s := kerneltest.StreamText(out, "stdout"); s != "in a 42\n" {
		t.Errorf("subshell cell printed %q, want %q", s, "in a 42\n")
	}
	// One session: the main shell sees what the subshell defined.
	if _, out := c.Execute(`fmt.Println(x)`, nil); kerneltest.StreamText(out, "stdout") != "42\n" {
		t.Errorf("main shell after the subshell's cell printed %q, want 42", kerneltest.StreamText(out, "stdout"))
	}

	if r := control(t, c, "delete_subshell_request", map[string]any{"subshell_id": a}); r.Content["status"] != "ok" {
		t.Errorf("delete_subshell_request = %v, want ok", r.Content)
	}
	if got := listSubshells(t, c); !slices.Equal(got, []string{b}) {
		t.Errorf("after delete, list = %q, want %q", got, []string{b})
	}
	if r := control(t, c, "delete_subshell_request", map[string]any{"subshell_id": a}); r.Content["status"] != "error" {
		t.Errorf("delete of a deleted subshell = %v, want an error", r.Content)
	}
	// A request for the deleted subshell gets an error reply, and the
	// kernel serves on.
	for _, msgType := range []string{"execute_request", "kernel_info_request"} {
		id = c.SendTo("shell", a, msgType, executeContent(`fmt.Println("never")`))
		r, err = c.Reply("shell", id)
		if err != nil || r.Content["status"] != "error" || r.Content["ename"] != "UnknownSubshellError" {
			t.Errorf("%s for a deleted subshell = %s %v %v, want an UnknownSubshellError reply", msgType, r.MsgType, r.Content, err)
		}
	}
	if _, out := c.Execute(`fmt.Println("still here")`, nil); kerneltest.StreamText(out, "stdout") != "still here\n" {
		t.Error("the kernel did not serve on after requests for a deleted subshell")
	}
}

// TestSubshellDuringCell: while the main shell's cell runs, a subshell
// gets kernel_info at once, its comm message reaches a widget callback
// that the running cell sees, and its own cell waits for the main one
// (one writer at a time); an error there with stop_on_error aborts only
// the subshell's queue.
func TestSubshellDuringCell(t *testing.T) {
	c := start(t, "tcp")
	run(t, c, widgetsImport+"\nimport \"time\"")
	out := run(t, c, `s := widgets.NewIntSlider("stop at", 0, 100, 0)
s`)
	slider := fmt.Sprint(widgetOpen(t, out, "IntSliderModel").Content["comm_id"])
	sub := createSubshell(t, c)

	cell := c.Send("shell", "execute_request", executeContent(`fmt.Println("waiting")
deadline := time.Now().Add(20 * time.Second)
for s.Value() != 77 && time.Now().Before(deadline) {
	time.Sleep(5 * time.Millisecond)
}
fmt.Println("saw", s.Value())`))
	waitStdout(t, c, cell, "waiting")

	info := c.SendTo("shell", sub, "kernel_info_request", map[string]any{})
	if r, err := c.ReplyWithin("shell", info, 5*time.Second); err != nil || r.Content["status"] != "ok" {
		t.Fatalf("kernel_info on a subshell during a cell: %v %v", r.Content, err)
	}
	// The subshell's cells queue behind the running one: the failing one
	// first, then one that stop_on_error aborts.
	bad := c.SendTo("shell", sub, "execute_request", executeContent(`undefinedName()`))
	after := c.SendTo("shell", sub, "execute_request", executeContent(`fmt.Println("aborted?")`))
	c.SendTo("shell", sub, "comm_msg", map[string]any{"comm_id": slider, "data": update("value", 77)})

	var order []string
	for len(order) < 3 {
		select {
		case m := <-c.Inbox("shell"):
			switch m.ParentID {
			case cell, bad, after:
				order = append(order, fmt.Sprintf("%s:%v", map[string]string{cell: "main", bad: "bad", after: "after"}[m.ParentID], m.Content["status"]))
			}
		case <-time.After(kerneltest.Timeout):
			t.Fatalf("replies so far %q: timed out", order)
		}
	}
	want := []string{"main:ok", "bad:error", "after:aborted"}
	if !slices.Equal(order, want) {
		t.Errorf("replies = %q, want %q (the subshell's cells after the main one; stop_on_error aborts the subshell's queue)", order, want)
	}
	// The main shell's queue was not aborted by the subshell's failure.
	if _, out := c.Execute(`fmt.Println("main goes on")`, nil); kerneltest.StreamText(out, "stdout") != "main goes on\n" {
		t.Error("the main shell was aborted by a subshell's failure")
	}
}

// waitStdout reads iopub until the cell msgID printed text.
func waitStdout(t *testing.T, c *kerneltest.Client, msgID, text string) {
	t.Helper()
	var got []kerneltest.Message
	for !strings.Contains(kerneltest.StreamText(got, "stdout"), text) {
		select {
		case m := <-c.Inbox("iopub"):
			if m.ParentID == msgID {
				got = append(got, m)
			}
		case <-time.After(kerneltest.Timeout):
			t.Fatalf("the cell did not print %q", text)
		}
	}
}
