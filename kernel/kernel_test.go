package kernel_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/kernel/internal/wire"
	"github.com/gnnlab/gnnlab/kernel/kerneltest"
)

// workerCmd runs the gnnlab binary that TestMain builds.
var workerCmd []string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gnnlab-kernel-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	exe, err := kerneltest.Build(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	workerCmd = []string{exe, "worker"}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func start(t *testing.T, transport string) *kerneltest.Client {
	return kerneltest.Start(t, kerneltest.Options{Transport: transport, WorkerCommand: workerCmd, Logf: t.Logf})
}

func statuses(msgs []kerneltest.Message) []string {
	var s []string
	for _, m := range kerneltest.Filter(msgs, "status") {
		s = append(s, fmt.Sprint(m.Content["execution_state"]))
	}
	return s
}

func TestKernelInfo(t *testing.T) {
	for _, transport := range []string{"tcp", "ipc"} {
		t.Run(transport, func(t *testing.T) {
			c := start(t, transport)
			for _, channel := range []string{"shell", "control"} {
				id := c.Send(channel, "kernel_info_request", map[string]any{})
				r, err := c.Reply(channel, id)
				if err != nil {
					t.Fatalf("kernel_info on %s: %v", channel, err)
				}
				if r.MsgType != "kernel_info_reply" || r.Content["protocol_version"] != "5.5" || r.Content["implementation"] != "gnnlab" || r.Content["status"] != "ok" {
					t.Errorf("kernel_info_reply on %s = %v", channel, r.Content)
				}
				li, _ := r.Content["language_info"].(map[string]any)
				if li["name"] != "go" || li["file_extension"] != ".go" || li["mimetype"] != "text/x-go" || strings.HasPrefix(fmt.Sprint(li["version"]), "go") {
					t.Errorf("language_info = %v", li)
				}
				out, err := c.IOPubUntilIdle(id)
				if err != nil {
					t.Fatal(err)
				}
				if got := statuses(out); len(got) != 2 || got[0] != "busy" {
					t.Errorf("statuses for kernel_info on %s = %v, want [busy idle]", channel, got)
				}
			}
			if got, err := c.Ping("ping"); err != nil || got != "ping" {
				t.Errorf("Ping(ping) = %q, %v, want ping", got, err)
			}
		})
	}
}

func TestForgedAndMalformedDropped(t *testing.T) {
	c := start(t, "tcp")
	h := c.Header("kernel_info_request")
	forged := c.Encode(&wire.Message{Header: h, Content: []byte(`{}`)})
	forged[1] = []byte(strings.Repeat("0", 64)) // delimiter, signature, ...
	c.SendFrames("shell", forged)
	uh := c.Header("kernel_info_request")
	unsigned := c.Encode(&wire.Message{Header: uh, Content: []byte(`{}`)})
	unsigned[1] = nil
	c.SendFrames("control", unsigned)
	c.SendFrames("shell", [][]byte{[]byte("no delimiter")})
	c.SendFrames("shell", [][]byte{[]byte(wire.Delimiter), []byte("sig")})
	if m, err := c.ReplyWithin("shell", h.MsgID, 500*time.Millisecond); err == nil {
		t.Fatalf("forged kernel_info got a reply: %v", m)
	}
	if m, err := c.ReplyWithin("control", uh.MsgID, 100*time.Millisecond); err == nil {
		t.Fatalf("unsigned kernel_info got a reply: %v", m)
	}
	// The kernel is still up and answers a correct request.
	id := c.Send("shell", "kernel_info_request", map[string]any{})
	if _, err := c.Reply("shell", id); err != nil {
		t.Fatalf("kernel_info after forged messages: %v", err)
	}
}

func TestExecute(t *testing.T) {
	c := start(t, "tcp")
	reply, out := c.Execute("import \"fmt\"\nfmt.Println(\"hello\")\nfmt.Println(\"wörld\")", nil)
	if reply.Content["status"] != "ok" || reply.Content["execution_count"] != float64(1) {
		t.Fatalf("execute reply = %v, want ok with execution_count 1", reply.Content)
	}
	if got := kerneltest.StreamText(out, "stdout"); got != "hello\nwörld\n" {
		t.Errorf("stdout = %q, want %q", got, "hello\nwörld\n")
	}
	if in := kerneltest.Filter(out, "execute_input"); len(in) != 1 || in[0].Content["execution_count"] != float64(1) {
		t.Errorf("execute_input = %v, want one with execution_count 1", in)
	}
	if got := statuses(out); len(got) != 2 || got[0] != "busy" || got[1] != "idle" {
		t.Errorf("statuses = %v, want [busy idle]", got)
	}

	reply, out = c.Execute("x := 40\nx + 2", map[string]any{"user_expressions": map[string]any{"double": "x * 2", "bad": "nope +"}})
	if reply.Content["status"] != "ok" || reply.Content["execution_count"] != float64(2) {
		t.Fatalf("execute reply = %v", reply.Content)
	}
	res := kerneltest.Filter(out, "execute_result")
	if len(res) != 1 || res[0].Content["data"].(map[string]any)["text/plain"] != "42" {
		t.Errorf("execute_result = %v, want 42", res)
	}
	ue, _ := reply.Content["user_expressions"].(map[string]any)
	double, _ := ue["double"].(map[string]any)
	bad, _ := ue["bad"].(map[string]any)
	if double["status"] != "ok" || fmt.Sprint(double["data"].(map[string]any)["text/plain"]) != "80" || bad["status"] != "error" {
		t.Errorf("user_expressions = %v, want double ok 80 and bad error", ue)
	}

	// Silent: no execute_input, no result, no new execution count.
	reply, out = c.Execute("x", map[string]any{"silent": true})
	if reply.Content["execution_count"] != float64(2) || len(kerneltest.Filter(out, "execute_result")) != 0 || len(kerneltest.Filter(out, "execute_input")) != 0 {
		t.Errorf("silent execute: reply %v, iopub %v", reply.Content, out)
	}

	reply, out = c.Execute("y := undefinedName + 1", nil)
	errs := kerneltest.Filter(out, "error")
	if reply.Content["status"] != "error" || len(errs) != 1 || !strings.Contains(fmt.Sprint(errs[0].Content["evalue"]), "undefinedName") {
		t.Errorf("failed cell: reply %v, errors %v, want one error naming undefinedName", reply.Content, errs)
	}
}

func TestStopOnError(t *testing.T) {
	c := start(t, "tcp")
	ids := []string{
		// The failing cell takes a moment, so that the two behind it are
		// queued whatever the machine's load.
		c.Send("shell", "execute_request", map[string]any{"code": "import \"time\"\ntime.Sleep(100 * time.Millisecond)\npanic(\"first fails\")", "stop_on_error": true}),
		c.Send("shell", "execute_request", map[string]any{"code": "b := 2"}),
		c.Send("shell", "execute_request", map[string]any{"code": "b + 1"}),
	}
	var got []string
	for _, id := range ids {
		r, err := c.Reply("shell", id)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprint(r.Content["status"]))
	}
	if strings.Join(got, " ") != "error aborted aborted" {
		t.Errorf("statuses = %v, want error aborted aborted", got)
	}
	reply, _ := c.Execute("c := 5\nc", nil)
	if reply.Content["status"] != "ok" {
		t.Errorf("execute after the aborts = %v, want ok", reply.Content)
	}
	// stop_on_error false keeps the queue.
	ids = []string{
		c.Send("shell", "execute_request", map[string]any{"code": "panic(\"fails\")", "stop_on_error": false}),
		c.Send("shell", "execute_request", map[string]any{"code": "c + 1"}),
	}
	got = nil
	for _, id := range ids {
		r, err := c.Reply("shell", id)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprint(r.Content["status"]))
	}
	if strings.Join(got, " ") != "error ok" {
		t.Errorf("statuses without stop_on_error = %v, want error ok", got)
	}
}

// TestStopOnErrorLateArrival sends, after a failed cell, a request the
// client made before the failure but which reaches the kernel only later
// than abortWindow (as on a loaded machine): it is still aborted, because
// it comes from the failed cell's session, while a request made after
// the failure runs.
func TestStopOnErrorLateArrival(t *testing.T) {
	c := start(t, "tcp")
	late := c.Header("execute_request") // dated before the failure
	failed := c.Send("shell", "execute_request", map[string]any{"code": `panic("fails")`, "stop_on_error": true})
	if r, err := c.Reply("shell", failed); err != nil || r.Content["status"] != "error" {
		t.Fatalf("failing cell: %v, %v; want status error", r.Content, err)
	}
	time.Sleep(1200 * time.Millisecond) // past the kernel's one-second abortWindow
	c.SendFrames("shell", c.Encode(&wire.Message{Header: late, Content: []byte(`{"code": "1 + 1"}`)}))
	r, err := c.Reply("shell", late.MsgID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Content["status"] != "aborted" {
		t.Errorf("request made before the failure, arriving late: status %v, want aborted", r.Content["status"])
	}
	if reply, _ := c.Execute("2 + 2", nil); reply.Content["status"] != "ok" {
		t.Errorf("request made after the failure: %v, want ok", reply.Content)
	}
}

// TestStopOnErrorNextCellRuns sends the next cell as soon as the failed
// cell's error reply arrives, as a frontend running cells one after the
// other does: it was sent after the failure and must run. The kernel used
// to send the error reply before it emptied the queue, so a request
// answering the reply quickly enough (a loaded machine, -race) was
// aborted with the requests queued before the failure
// (TestInterruptKeepsFunctions: "tri(3): status aborted").
func TestStopOnErrorNextCellRuns(t *testing.T) {
	c := start(t, "tcp")
	for i := range 40 {
		failed := c.Send("shell", "execute_request", map[string]any{"code": "undefinedName", "stop_on_error": true})
		if r, err := c.Reply("shell", failed); err != nil || r.Content["status"] != "error" {
			t.Fatalf("failing cell %d: %v, %v; want status error", i, r.Content, err)
		}
		next := c.Send("shell", "execute_request", map[string]any{"code": "1 + 1", "stop_on_error": true})
		r, err := c.Reply("shell", next)
		if err != nil {
			t.Fatal(err)
		}
		if r.Content["status"] != "ok" {
			t.Fatalf("cell %d, sent on seeing the error reply: status %v, want ok", i, r.Content["status"])
		}
	}
}

func TestInterrupt(t *testing.T) {
	for _, how := range []string{"interrupt_request", "SIGINT"} {
		t.Run(how, func(t *testing.T) { testInterrupt(t, how) })
	}
}

func testInterrupt(t *testing.T, how string) {
	sig := make(chan os.Signal, 1)
	c := kerneltest.Start(t, kerneltest.Options{WorkerCommand: workerCmd, Interrupts: sig, Logf: t.Logf})
	c.Execute("kept := 7", nil)
	id := c.Send("shell", "execute_request", map[string]any{"code": "for {\n}"})
	waitBusy(t, c, id)
	if how == "SIGINT" {
		sig <- os.Interrupt // what the command does with a real SIGINT
	} else {
		iid := c.Send("control", "interrupt_request", map[string]any{})
		if r, err := c.Reply("control", iid); err != nil || r.MsgType != "interrupt_reply" {
			t.Fatalf("interrupt_reply on control = %v, %v", r, err)
		}
	}
	reply, err := c.Reply("shell", id)
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.IOPubUntilIdle(id)
	if err != nil {
		t.Fatal(err)
	}
	errs := kerneltest.Filter(out, "error")
	if reply.Content["status"] != "error" || len(errs) != 1 || errs[0].Content["ename"] != "interrupted" {
		t.Errorf("interrupted cell: reply %v, errors %v, want one error named interrupted", reply.Content, errs)
	}
	reply, out = c.Execute("kept + 1", nil)
	if res := kerneltest.Filter(out, "execute_result"); reply.Content["status"] != "ok" || len(res) != 1 || res[0].Content["data"].(map[string]any)["text/plain"] != "8" {
		t.Errorf("kept + 1 after interrupt = %v %v, want 8 (state kept)", reply.Content, res)
	}
}

// waitBusy waits for the busy status of request id.
func waitBusy(t *testing.T, c *kerneltest.Client, id string) {
	t.Helper()
	timeout := time.After(kerneltest.Timeout)
	for {
		select {
		case m := <-c.Inbox("iopub"):
			if m.ParentID == id && m.MsgType == "status" && m.Content["execution_state"] == "busy" {
				return
			}
		case <-timeout:
			t.Fatalf("no busy status for %s", id)
		}
	}
}

func TestWorkerCrash(t *testing.T) {
	tests := []struct {
		name, code, cause string
	}{
		// The session may sandbox os.Exit into an error; either way the
		// error names the exit and its status.
		{"os.Exit", "import \"os\"\nos.Exit(3)", "exit(3)"},
		{"goroutine panic", "import \"time\"\ngo func() { panic(\"boom\") }()\ntime.Sleep(20 * time.Second)", "panic in a goroutine: boom"},
		{"stack overflow", "func down(n int) int { return down(n+1) + 1 }\ndown(0)", "stack overflow"},
	}
	c := start(t, "tcp")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.Execute("kept := 41", nil)
			reply, out := c.Execute(tt.code, nil)
			errs := kerneltest.Filter(out, "error")
			if reply.Content["status"] != "error" || len(errs) != 1 {
				t.Fatalf("crashing cell: reply %v, %d error messages, want status error and one error", reply.Content, len(errs))
			}
			if ev := strings.ToLower(fmt.Sprint(errs[0].Content["evalue"])); !strings.Contains(ev, tt.cause) {
				t.Errorf("crash evalue = %q, want it to contain %q", ev, tt.cause)
			}
			count := reply.Content["execution_count"].(float64)
			reply, _ = c.Execute("1 + 1", nil)
			if reply.Content["status"] != "ok" || reply.Content["execution_count"] != count+1 {
				t.Errorf("cell after crash = %v, want ok with execution_count %v", reply.Content, count+1)
			}
			reply, out = c.Execute("%replay", nil)
			if reply.Content["status"] != "ok" {
				t.Fatalf("%%replay = %v %v", reply.Content, out)
			}
			reply, out = c.Execute("kept + 1", nil)
			if res := kerneltest.Filter(out, "execute_result"); len(res) != 1 || res[0].Content["data"].(map[string]any)["text/plain"] != "42" {
				t.Errorf("after %%replay, kept + 1 = %v %v, want 42", reply.Content, res)
			}
		})
	}
}

func TestStdin(t *testing.T) {
	c := start(t, "tcp")
	code := "import \"fmt\"\nvar name string\nfmt.Scanln(&name)\nfmt.Println(\"hi\", name)"
	id := c.Send("shell", "execute_request", map[string]any{"code": code, "allow_stdin": true})
	req, err := c.Reply("stdin", id)
	if err != nil || req.MsgType != "input_request" {
		t.Fatalf("input_request = %v, %v", req, err)
	}
	c.Send("stdin", "input_reply", map[string]any{"value": "gopher"})
	if r, err := c.Reply("shell", id); err != nil || r.Content["status"] != "ok" {
		t.Fatalf("execute with input = %v, %v", r, err)
	}
	out, _ := c.IOPubUntilIdle(id)
	if got := kerneltest.StreamText(out, "stdout"); got != "hi gopher\n" {
		t.Errorf("stdout = %q, want %q", got, "hi gopher\n")
	}
	// Without allow_stdin the cell gets an error instead of hanging.
	reply, _ := c.Execute(code, map[string]any{"allow_stdin": false})
	if reply.Content["status"] != "ok" && reply.Content["status"] != "error" {
		t.Errorf("execute without stdin = %v", reply.Content)
	}
}

// TestStdinEOF: an empty input_reply is the end of standard input, so a
// cell reading os.Stdin to the end finishes.
func TestStdinEOF(t *testing.T) {
	c := start(t, "tcp")
	code := "import (\n\"fmt\"\n\"io\"\n\"os\"\n)\nb, err := io.ReadAll(os.Stdin)\nfmt.Printf(\"%q %v\\n\", b, err)"
	id := c.Send("shell", "execute_request", map[string]any{"code": code, "allow_stdin": true})
	for _, v := range []string{"x", ""} {
		req, err := c.Reply("stdin", id)
		if err != nil || req.MsgType != "input_request" {
			t.Fatalf("input_request = %v, %v", req, err)
		}
		c.Send("stdin", "input_reply", map[string]any{"value": v})
	}
	if r, err := c.Reply("shell", id); err != nil || r.Content["status"] != "ok" {
		t.Fatalf("execute reading to the end = %v, %v", r, err)
	}
	out, _ := c.IOPubUntilIdle(id)
	if got, want := kerneltest.StreamText(out, "stdout"), "\"x\\n\" <nil>\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
}

func TestShellRequests(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "h.jsonl")
	c := kerneltest.Start(t, kerneltest.Options{WorkerCommand: workerCmd, HistoryPath: hist, Logf: t.Logf})
	c.Execute("alpha := 1", nil)
	c.Execute("alpha + 1", nil)
	c.Execute("beta := 2", nil)

	ask := func(msgType string, content map[string]any) map[string]any {
		t.Helper()
		id := c.Send("shell", msgType, content)
		r, err := c.Reply("shell", id)
		if err != nil {
			t.Fatalf("%s: %v", msgType, err)
		}
		if r.Content["status"] != "ok" && msgType != "is_complete_request" {
			t.Errorf("%s reply = %v, want status ok", msgType, r.Content)
		}
		return r.Content
	}
	h := ask("history_request", map[string]any{"hist_access_type": "tail", "n": 2, "output": false, "raw": true})
	if fmt.Sprint(h["history"]) != "[[1 2 alpha + 1] [1 3 beta := 2]]" {
		t.Errorf("history tail 2 = %v", h["history"])
	}
	h = ask("history_request", map[string]any{"hist_access_type": "search", "pattern": "alpha*", "output": true, "raw": true})
	if fmt.Sprint(h["history"]) != "[[1 1 [alpha := 1 <nil>]] [1 2 [alpha + 1 2]]]" {
		t.Errorf("history search alpha* = %v", h["history"])
	}
	h = ask("history_request", map[string]any{"hist_access_type": "range", "session": 0, "start": 2, "stop": 3, "output": false, "raw": true})
	if fmt.Sprint(h["history"]) != "[[1 2 alpha + 1]]" {
		t.Errorf("history range 2-3 = %v", h["history"])
	}

	ic := ask("is_complete_request", map[string]any{"code": "func f() {"})
	if ic["status"] != "incomplete" {
		t.Errorf("is_complete(func f() {) = %v, want incomplete", ic)
	}
	cr := ask("complete_request", map[string]any{"code": "s := \"é\"; alp", "cursor_pos": 13})
	if cr["cursor_start"] != float64(10) || cr["cursor_end"] != float64(13) || fmt.Sprint(cr["matches"]) != "[alpha]" {
		t.Errorf("complete_reply = %v, want [alpha] over 10-13 (code points)", cr)
	}

	ask("comm_info_request", map[string]any{})
	id := c.Send("shell", "comm_open", map[string]any{"comm_id": "c1", "target_name": "nobody", "data": map[string]any{}})
	out, err := c.IOPubUntilIdle(id)
	if err != nil {
		t.Fatal(err)
	}
	if cl := kerneltest.Filter(out, "comm_close"); len(cl) != 1 || cl[0].Content["comm_id"] != "c1" {
		t.Errorf("comm_open for an unknown target: iopub %v, want comm_close c1", out)
	}
	ci := ask("comm_info_request", map[string]any{"target_name": "nobody"})
	if comms, _ := ci["comms"].(map[string]any); len(comms) != 0 {
		t.Errorf("comm_info after a refused comm = %v, want none", ci)
	}
}

func TestShutdown(t *testing.T) {
	c := start(t, "tcp")
	id := c.Send("control", "shutdown_request", map[string]any{"restart": false})
	r, err := c.Reply("control", id)
	if err != nil || r.MsgType != "shutdown_reply" || r.Content["restart"] != false {
		t.Fatalf("shutdown_reply on control = %v, %v", r, err)
	}
	select {
	case <-c.Done():
	case <-time.After(kerneltest.Timeout):
		t.Fatal("kernel still running after shutdown_request")
	}
}

// BenchmarkExecute measures the round trip of a trivial cell: request,
// worker, reply and idle status.
func BenchmarkExecute(b *testing.B) {
	c := kerneltest.Start(b, kerneltest.Options{WorkerCommand: workerCmd})
	c.Execute("x := 1", nil)
	b.ReportAllocs()
	for b.Loop() {
		id := c.Send("shell", "execute_request", map[string]any{"code": "x", "silent": false, "store_history": false, "user_expressions": map[string]any{}, "allow_stdin": false})
		if _, err := c.Reply("shell", id); err != nil {
			b.Fatal(err)
		}
		if _, err := c.IOPubUntilIdle(id); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkKernelInfo measures a request that the kernel answers alone.
func BenchmarkKernelInfo(b *testing.B) {
	c := kerneltest.Start(b, kerneltest.Options{WorkerCommand: workerCmd})
	for b.Loop() {
		id := c.Send("shell", "kernel_info_request", map[string]any{})
		if _, err := c.Reply("shell", id); err != nil {
			b.Fatal(err)
		}
		if _, err := c.IOPubUntilIdle(id); err != nil {
			b.Fatal(err)
		}
	}
}

func TestPager(t *testing.T) {
	c := start(t, "tcp")
	reply, _ := c.Execute("fmt.Println?", nil)
	payload, _ := reply.Content["payload"].([]any)
	if reply.Content["status"] != "ok" || len(payload) != 1 {
		t.Fatalf("fmt.Println? = %v, want ok with one payload", reply.Content)
	}
	p := payload[0].(map[string]any)
	if p["source"] != "page" || !strings.Contains(fmt.Sprint(p["data"]), "Println") {
		t.Errorf("fmt.Println? payload = %v, want a page naming Println", p)
	}
}

func TestMagics(t *testing.T) {
	c := start(t, "tcp")
	reply, out := c.Execute("%replay", nil)
	if reply.Content["status"] != "ok" || !strings.Contains(kerneltest.StreamText(out, "stdout"), "Nothing to replay") {
		t.Errorf("%%replay with nothing lost = %v %v, want ok and a note", reply.Content, out)
	}
	c.Execute("gone := 1", nil)
	reply, _ = c.Execute("%restart", nil)
	if reply.Content["status"] != "ok" {
		t.Fatalf("%%restart = %v", reply.Content)
	}
	reply, _ = c.Execute("gone", nil)
	if reply.Content["status"] != "error" {
		t.Errorf("gone after %%restart = %v, want an error (fresh state)", reply.Content)
	}
}

// Output and rich events travel on separate pipes; what a cell prints right
// after clear_output or a display must still come after it on iopub.
func TestOutputKeepsItsPlaceAfterEvents(t *testing.T) {
	c := start(t, "tcp")
	code := `import (
	"fmt"
	"github.com/gnnlab/gnnlab/viz/display"
)
for i := 0; i < 20; i++ {
	display.Clear(false)
	fmt.Println("line", i)
	display.HTML(fmt.Sprint("<i>", i, "</i>"))
	fmt.Println("after", i)
}`
	reply, out := c.Execute(code, nil)
	if reply.Content["status"] != "ok" {
		t.Fatalf("execute reply = %v", reply.Content)
	}
	var got []string
	for _, m := range out {
		switch m.MsgType {
		case "clear_output":
			got = append(got, "clear")
		case "display_data":
			got = append(got, "html")
		case "stream":
			// A stream message may hold several lines; count them.
			for range strings.Count(m.Content["text"].(string), "\n") {
				got = append(got, "text")
			}
		}
	}
	want := strings.Repeat("clear text html text ", 20)
	if g := strings.Join(got, " ") + " "; g != want {
		t.Errorf("iopub order =\n%s\nwant\n%s", g, want)
	}
}

// A goroutine that panics after its cell returned crashes the worker while
// the cell counts as succeeded; %replay must not run that cell again (it
// would crash the fresh worker too), and the crash message says so.
func TestReplayLeavesOutThePanickingGoroutine(t *testing.T) {
	c := start(t, "tcp")
	c.Execute("kept := 41", nil)
	late := "import \"time\"\ngo func() { time.Sleep(300 * time.Millisecond); panic(\"late\") }()"
	if reply, _ := c.Execute(late, nil); reply.Content["status"] != "ok" {
		t.Fatalf("cell starting the goroutine = %v, want ok (it returns before the panic)", reply.Content)
	}
	// The crash comes while this cell sleeps.
	reply, out := c.Execute("time.Sleep(20 * time.Second)", nil)
	errs := kerneltest.Filter(out, "error")
	if reply.Content["status"] != "error" || len(errs) != 1 {
		t.Fatalf("cell during the crash: reply %v, %d errors", reply.Content, len(errs))
	}
	if tb := fmt.Sprint(errs[0].Content["traceback"]); !strings.Contains(tb, "leaves out") || !strings.Contains(tb, "go func()") {
		t.Errorf("crash traceback = %s, want it to name the cell %%replay leaves out", tb)
	}
	if reply, out := c.Execute("%replay", nil); reply.Content["status"] != "ok" {
		t.Fatalf("%%replay = %v %v", reply.Content, out)
	}
	_, out = c.Execute("kept + 1", nil)
	if res := kerneltest.Filter(out, "execute_result"); len(res) != 1 || res[0].Content["data"].(map[string]any)["text/plain"] != "42" {
		t.Errorf("after %%replay, kept + 1 = %v, want 42 (and no second crash)", res)
	}
}
