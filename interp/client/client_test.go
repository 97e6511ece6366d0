package client_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/interp/client"
	"github.com/gnnlab/gnnlab/interp/worker"
	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// The test binary doubles as the worker: with GNNLAB_TEST_WORKER=loop it
// serves the real session on fds 3 and 4, as "gnnlab worker" does.
func TestMain(m *testing.M) {
	if os.Getenv("GNNLAB_TEST_WORKER") == "loop" {
		os.Exit(worker.Main())
	}
	os.Exit(m.Run())
}

// output collects what the worker printed.
type output struct {
	mu sync.Mutex
	b  strings.Builder
}

func (o *output) write(_, text string) {
	o.mu.Lock()
	o.b.WriteString(text)
	o.mu.Unlock()
}

func (o *output) take() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.b.String()
	o.b.Reset()
	return s
}

func start(t testing.TB) (*client.Client, *output) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := &output{}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := client.Start(ctx, client.Config{Command: []string{exe}, Env: []string{"GNNLAB_TEST_WORKER=loop"}, Output: out.write})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, out
}

// exec runs a cell with a timeout and returns the text of its result.
func exec(t testing.TB, c *client.Client, code string) (string, *workerproto.CellError) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var result string
	res, err := c.Execute(ctx, client.Cell{Code: code}, func(ev workerproto.Event) {
		if ev.Kind == workerproto.EvResult {
			result = ev.Bundle.Text()
		}
	})
	if err != nil {
		t.Fatalf("Execute(%q) = %v", code, err)
	}
	return result, res.Error
}

func TestCrashAndReplay(t *testing.T) {
	c, out := start(t)
	if got, ce := exec(t, c, "import \"fmt\"\nx := 6\nfmt.Println(\"hi\")\nx * 7"); ce != nil || got != "42" {
		t.Fatalf("cell = %q, %v, want 42", got, ce)
	}
	if got := out.take(); got != "hi\n" {
		t.Errorf("printed %q, want %q", got, "hi\n")
	}
	_, ce := exec(t, c, "import \"time\"\ngo func() { panic(\"boom\") }()\ntime.Sleep(5 * time.Second)")
	if ce == nil || ce.Name != "worker crashed" || !strings.Contains(strings.Join(ce.Traceback, "\n"), "%replay") {
		t.Fatalf("goroutine panic cell error = %+v, want a crash that suggests %%replay", ce)
	}
	if _, ce := exec(t, c, "x"); ce == nil {
		t.Errorf("x after the crash: no error, want undefined")
	}
	if _, ce := exec(t, c, "%replay"); ce != nil {
		t.Fatalf("%%replay = %+v", ce)
	}
	if got := out.take(); !strings.Contains(got, "Replaying 1 cells") || !strings.Contains(got, "restored") {
		t.Errorf("%%replay printed %q", got)
	}
	if got, ce := exec(t, c, "x"); ce != nil || got != "6" {
		t.Errorf("x after %%replay = %q, %v, want 6", got, ce)
	}
	exec(t, c, "%history")
	hist := out.take()
	for _, want := range []string{"  1: import \"fmt\"", "     x := 6", "  2: import \"time\"", "%replay"} {
		if !strings.Contains(hist, want) {
			t.Errorf("%%history = %q, want it to contain %q", hist, want)
		}
	}
	if _, ce := exec(t, c, "%restart"); ce != nil {
		t.Fatalf("%%restart = %+v", ce)
	}
	if _, ce := exec(t, c, "x"); ce == nil {
		t.Errorf("x after %%restart: no error, want undefined")
	}
	if h := c.History(); len(h) != 8 || !h[0].OK || h[1].OK != false {
		t.Errorf("History() = %+v, want 8 cells, the first ok, the second failed", h)
	}
}

func TestInterrupt(t *testing.T) {
	c, _ := start(t)
	done := make(chan *workerproto.CellError, 1)
	go func() {
		_, ce := exec(t, c, "n := 0\nfor {\n\tn++\n}")
		done <- ce
	}()
	// Interrupt until the cell ends: the first one may come before it runs.
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ce := <-done:
			if ce == nil || ce.Name != "interrupted" {
				t.Fatalf("interrupted cell error = %+v, want interrupted", ce)
			}
			if got, ce := exec(t, c, "n > 0"); ce != nil || got != "true" {
				t.Errorf("n > 0 after the interrupt = %q, %v, want true (the session kept its state)", got, ce)
			}
			return
		case <-tick.C:
			c.Interrupt()
		case <-timeout:
			t.Fatal("the cell was not interrupted within 30 s")
		}
	}
}

// An interrupt after a cell's turn began but before the cell reached the
// worker (the kernel publishes execute_input in between) stops it before
// it starts; the next turn starts clean.
func TestInterruptBeforeStart(t *testing.T) {
	c, _ := start(t)
	end := c.Begin()
	c.Interrupt()
	_, ce := exec(t, c, "started := true")
	end()
	if ce == nil || ce.Name != "interrupted" {
		t.Fatalf("cell interrupted before it started: error %+v, want interrupted", ce)
	}
	if _, ce := exec(t, c, "started"); ce == nil {
		t.Errorf("started after the interrupted cell: no error, want undefined (the cell never ran)")
	}
	if got, ce := exec(t, c, "1 + 1"); ce != nil || got != "2" {
		t.Errorf("1 + 1 in the next turn = %q, %v, want 2", got, ce)
	}
}

// Short requests answer ErrBusy at once while a cell runs, rather than
// wait behind it.
func TestShortRequestsDoNotWait(t *testing.T) {
	c, _ := start(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		exec(t, c, "import \"time\"\ntime.Sleep(2 * time.Second)")
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, _, _, err := c.Complete(ctx, "fm", 2)
		if errors.Is(err, client.ErrBusy) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Complete while a cell runs = %v, want ErrBusy", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	<-done // exec gives the cell a minute
	if _, _, _, err := c.Complete(ctx, "fm", 2); err != nil {
		t.Errorf("Complete after the cell = %v, want nil", err)
	}
}

func TestCompleteAndIsComplete(t *testing.T) {
	c, _ := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	matches, start, end, err := c.Complete(ctx, "strings.ToUp", 12)
	if err != nil || start != 8 || end != 12 || len(matches) == 0 || matches[0] != "ToUpper" {
		t.Errorf("Complete(strings.ToUp) = %v, %d, %d, %v, want [ToUpper ...], 8, 12", matches, start, end, err)
	}
	for code, want := range map[string]string{"x := 1": "complete", "func f() {": "incomplete"} {
		if got, _, err := c.IsComplete(ctx, code); err != nil || got != want {
			t.Errorf("IsComplete(%q) = %q, %v, want %q", code, got, err, want)
		}
	}
}
