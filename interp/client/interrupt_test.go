package client_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/interp/client"
	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// blockedCell is a cell that blocks in one kind of call until it is
// interrupted. %s in code is replaced by the URL of a server that never
// answers.
type blockedCell struct {
	kind string
	code string
}

var blockedCells = []blockedCell{
	{"time.Sleep", "time.Sleep(60 * time.Second)"},
	{"channel receive", "ch := make(chan int)\n<-ch"},
	{"channel send", "ch := make(chan int)\nch <- 1"},
	{"sync.WaitGroup.Wait", "var wg sync.WaitGroup\nwg.Add(1)\nwg.Wait()"},
	{"select", "a, b := make(chan int), make(chan int)\nselect {\ncase <-a:\ncase <-b:\n}"},
	// A select in a function runs through the session's select helper
	// (the rewrite pass selects), which waits on the interrupt signal.
	{"select in a function", "wait := func(a, b chan int) int {\n\tselect {\n\tcase v := <-a:\n\t\treturn v\n\tcase <-b:\n\t}\n\treturn 0\n}\nfmt.Println(wait(make(chan int), nil))"},
	{"time.Ticker", "tk := time.NewTicker(time.Hour)\nfor range tk.C {\n}"},
	{"http.Get", "resp, err := http.Get(%q)\nif err == nil {\n\tresp.Body.Close()\n}"},
	{"pipe read", "r, w, _ := os.Pipe()\nbuf := make([]byte, 1)\nr.Read(buf)\nw.Close()"},
	// One parallel tensor operation (about 0.1 s) after another: the
	// interpreted loop stops between them.
	{"tensor MatMul", "a := tensor.Ones(1500, 1500)\nfor {\n\ta = a.MatMul(a).MulScalar(0.0001)\n}"},
	// One operation of seconds: the GEMM stops between its blocks, the
	// parallel loop around it then ends the cell (the worker was replaced
	// while its chunks were one a thread and checked only before they
	// began).
	{"one 4000² MatMul", "a := tensor.Ones(4000, 4000)\nb := a.MatMul(a)\nfmt.Println(b.Shape())"},
	// A long operation of gnnlib that calls back into the cell's code.
	{"nn.ExplainNode", "ds := data.KarateClub()\nconv := nn.NewGCNConv(ds.NumFeatures(), 4)\n" +
		"model := func(g *graph.Graph, x, w *tensor.Tensor) *tensor.Tensor { return conv.ForwardWeighted(g, x, w) }\n" +
		"_, err := nn.ExplainNode(model, ds.Graph, ds.X, 0, nn.ExplainerOptions{Epochs: 100000000})\n" +
		"fmt.Println(errors.Is(err, interrupt.ErrInterrupted))"},
}

// neverAnswers is a local HTTP server whose handler waits until the test
// ends.
func neverAnswers(t testing.TB) string {
	quit := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-quit:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(quit); srv.Close() })
	return srv.URL
}

// interruptBlocked runs the cell of bc on c after definitions, interrupts
// it once it has printed that it blocks, and returns the cell's error, the
// time from the interrupt to the reply and what the output said.
func interruptBlocked(t testing.TB, c *client.Client, out *output, bc blockedCell, url string) (*workerproto.CellError, time.Duration) {
	t.Helper()
	code := bc.code
	if strings.Contains(code, "%q") {
		code = fmt.Sprintf(code, url)
	}
	code = "fmt.Println(\"blocking\")\n" + code
	done := make(chan *workerproto.CellError, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		res, err := c.Execute(ctx, client.Cell{Code: code}, nil)
		if err != nil {
			done <- &workerproto.CellError{Name: "client error", Value: err.Error()}
			return
		}
		done <- res.Error
	}()
	deadline := time.Now().Add(30 * time.Second)
	for !out.has("blocking\n") {
		if time.Now().After(deadline) {
			t.Fatalf("%s: the cell did not start within 30 s", bc.kind)
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // into the blocking call
	start := time.Now()
	c.Interrupt()
	select {
	case ce := <-done:
		return ce, time.Since(start)
	case <-time.After(60 * time.Second):
		t.Fatalf("%s: no reply within 60 s of the interrupt", bc.kind)
		return nil, 0
	}
}

const definitions = "import (\"errors\"; \"fmt\"; \"net/http\"; \"os\"; \"sync\"; \"time\"\n" +
	"\"github.com/gnnlab/gnnlab/gnnlib/data\"; \"github.com/gnnlab/gnnlab/gnnlib/graph\"; \"github.com/gnnlab/gnnlab/gnnlib/interrupt\"\n" +
	"\"github.com/gnnlab/gnnlab/gnnlib/nn\"; \"github.com/gnnlab/gnnlab/gnnlib/tensor\")\n" +
	"x := 6\n" +
	"func dbl(v int) int { return 2 * v }\n" +
	"func viaChan(v int) int {\n\tc := make(chan int, 1)\n\tc <- v\n\treturn <-c\n}"

// TestInterruptBlockedCalls interrupts a cell blocked in each kind of call
// through the real client and worker: the reply comes before the grace
// (the worker is not killed), says workerproto.EnameInterrupted, and the functions and
// variables defined before still answer (issue 28: after an interrupted
// time.Sleep, dbl(21) answered 0 with status ok).
func TestInterruptBlockedCalls(t *testing.T) {
	url := neverAnswers(t)
	for _, bc := range blockedCells {
		t.Run(strings.ReplaceAll(bc.kind, " ", "_"), func(t *testing.T) {
			c, out := start(t)
			if _, ce := exec(t, c, definitions); ce != nil {
				t.Fatalf("definitions: %+v", ce)
			}
			ce, took := interruptBlocked(t, c, out, bc, url)
			t.Logf("%s: reply %v after the interrupt: %+v", bc.kind, took.Round(time.Millisecond), ce)
			if ce == nil || ce.Name != workerproto.EnameInterrupted {
				t.Fatalf("%s: cell error = %+v, want %q", bc.kind, ce, workerproto.EnameInterrupted)
			}
			if took >= client.Grace {
				t.Errorf("%s: reply %v after the interrupt, want it before the grace (%v)", bc.kind, took, client.Grace)
			}
			if c.Crashes() != 0 || strings.Contains(strings.Join(ce.Traceback, "\n"), "restarted") {
				t.Errorf("%s: the worker was replaced, want the cell stopped in the session", bc.kind)
			}
			for expr, want := range map[string]string{"dbl(21)": "42", "viaChan(4)": "4", "x": "6"} {
				if got, ce := exec(t, c, expr); ce != nil || got != want {
					t.Errorf("%s: %s after the interrupt = %q, %+v, want %s", bc.kind, expr, got, ce, want)
				}
			}
		})
	}
}

// has reports whether the output so far contains s.
func (o *output) has(s string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return strings.Contains(o.b.String(), s)
}

// TestInterruptStuckCall interrupts a cell that waits in a compiled call
// the session cannot end (a second Lock of a sync.Mutex): the worker is
// replaced and the cells that had succeeded are replayed, so that the
// functions defined before answer as before, and the error says which
// cells were replayed (issue 28: dbl(21) answered 0 with status ok).
func TestInterruptStuckCall(t *testing.T) {
	c, out := start(t)
	if _, ce := exec(t, c, definitions); ce != nil {
		t.Fatalf("definitions: %+v", ce)
	}
	if _, ce := exec(t, c, "y := x + 1"); ce != nil {
		t.Fatalf("y := x + 1: %+v", ce)
	}
	exec(t, c, "undefinedName") // fails: not replayed
	ce, took := interruptBlocked(t, c, out, blockedCell{"sync.Mutex.Lock", "var mu sync.Mutex\nmu.Lock()\nmu.Lock()"}, "")
	t.Logf("reply %v after the interrupt: %+v", took.Round(time.Millisecond), ce)
	if ce == nil || ce.Name != workerproto.EnameInterrupted {
		t.Fatalf("stuck cell error = %+v, want %q", ce, workerproto.EnameInterrupted)
	}
	tb := strings.Join(ce.Traceback, "\n")
	for _, want := range []string{"restarted", "The 2 cells that had succeeded were replayed", "1. import (", "2. y := x + 1"} {
		if !strings.Contains(tb, want) {
			t.Errorf("traceback %q lacks %q", tb, want)
		}
	}
	for expr, want := range map[string]string{"dbl(21)": "42", "viaChan(4)": "4", "y": "7"} {
		if got, ce := exec(t, c, expr); ce != nil || got != want {
			t.Errorf("%s after the stuck cell = %q, %+v, want %s", expr, got, ce, want)
		}
	}
	if _, ce := exec(t, c, "mu"); ce == nil {
		t.Errorf("mu of the stuck cell is defined after the restart; want undefined (the cell did not succeed)")
	}
}

// TestInterruptWorkerSilent interrupts a cell whose worker does not answer
// at all (it stopped itself with SIGSTOP): the client kills it after
// Grace, and the state comes back on the fresh worker by itself.
func TestInterruptWorkerSilent(t *testing.T) {
	c, out := start(t)
	if _, ce := exec(t, c, definitions); ce != nil {
		t.Fatalf("definitions: %+v", ce)
	}
	if _, ce := exec(t, c, "import (\"os/exec\"; \"strconv\")"); ce != nil {
		t.Fatalf("import: %+v", ce)
	}
	ce, took := interruptBlocked(t, c, out, blockedCell{"SIGSTOP", "exec.Command(\"kill\", \"-STOP\", strconv.Itoa(os.Getpid())).Run()"}, "")
	t.Logf("reply %v after the interrupt: %+v", took.Round(time.Millisecond), ce)
	if ce == nil || ce.Name != workerproto.EnameInterrupted || !strings.Contains(strings.Join(ce.Traceback, "\n"), "The 2 cells that had succeeded were replayed") {
		t.Fatalf("silent worker's cell error = %+v, want interrupted with its cells replayed", ce)
	}
	if got, ce := exec(t, c, "dbl(21)"); ce != nil || got != "42" {
		t.Errorf("dbl(21) after the kill = %q, %+v, want 42", got, ce)
	}
}

// TestInterruptDeclaration interrupts a cell that declares a function
// while it is being prepared (the compiled tier builds it for a second or
// two): the cell must leave the function either defined, if it finished
// first, or undefined, never declared and nil. FuzzCells found it: its
// seed panic.cell, interrupted under load, then answered "reflect.Value.Call:
// call of nil function".
func TestInterruptDeclaration(t *testing.T) {
	c, _ := start(t)
	const decl = "func explode(n int) {\n\tif n > 2 {\n\t\tpanic(\"boom at three\")\n\t}\n}"
	for _, delay := range []time.Duration{5 * time.Millisecond, 50 * time.Millisecond, 300 * time.Millisecond} {
		if _, ce := exec(t, c, "%restart"); ce != nil {
			t.Fatalf("%%restart: %+v", ce)
		}
		done := make(chan *workerproto.CellError, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := c.Execute(ctx, client.Cell{Code: decl}, nil)
			if err != nil {
				done <- &workerproto.CellError{Name: "client error", Value: err.Error()}
				return
			}
			done <- res.Error
		}()
		time.Sleep(delay)
		c.Interrupt()
		declErr := <-done
		_, ce := exec(t, c, "explode(1)\nexplode(3)")
		t.Logf("interrupt after %v: declaration %+v; call %+v", delay, declErr, ce)
		switch {
		case declErr != nil && declErr.Name != workerproto.EnameInterrupted:
			t.Errorf("interrupt after %v: declaration failed with %+v, want it interrupted or done", delay, declErr)
		case declErr == nil && (ce == nil || ce.Value != "boom at three"):
			t.Errorf("interrupt after %v: the declaration finished, but explode(3) = %+v, want panic boom at three", delay, ce)
		case declErr != nil && (ce == nil || ce.Value != "undefined: explode"):
			t.Errorf("interrupt after %v: the declaration was interrupted, but explode(3) = %+v, want the compile error undefined: explode", delay, ce)
		}
	}
}
