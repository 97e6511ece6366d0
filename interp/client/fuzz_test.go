package client_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/interp/client"
	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// A fuzzer for cells (issue 28, 5). Its inputs are programs of cells
// separated by lines "// cell", as in interp/testdata/*.cell; its seeds
// are those programs and the findings kept under testdata/fuzz/*.cell.
// Each cell runs through the real client and worker, interrupted once when
// it runs for more than two seconds (see checkCell for the deadlines after
// that), and must fail, if it fails, as Go does:
//
//   - the worker does not die, unless for a cause that a Go program dies
//     of too (a panic in a goroutine, a stack overflow, concurrent map
//     writes, os.Exit in compiled code);
//   - no error shows the interpreter's insides: "internal error", yaegi's
//     or reflect's names, a goroutine dump.
//
// Run it for a bounded time with
//
//	go test ./interp/client -run '^$' -fuzz FuzzCells -fuzztime 60s
//
// and keep each finding as a .cell program under testdata/fuzz, which
// TestFuzzFindings runs with the seeds. make test runs it for 25 s with
// GNNLAB_COMPILED=off: the compiled tier builds each cell that declares a
// function as a plugin (a second or two), so with it a run would try a
// few dozen programs, most of them interrupted while being built; the
// seeds run with it in every go test.

// insides are texts that no error a user sees may hold.
var insides = []string{
	"internal error", "yaegi", "github.com/traefik", "reflect: ", "reflect.Value",
	"goroutine ", "runtime.gopanic", "nil type", "[recovered",
}

// knownGaps are texts of the insides that the session shows on purpose,
// after Go's words: an index out of range without Go's index and length
// (a BUG note in interp/doc.go) and yaegi's nil dereference through
// reflect (interp/errors.go).
var knownGaps = regexp.MustCompile(`(index out of range|nil pointer dereference) \(reflect: [^)\n]*\)`)

// goDeaths are the causes of a worker's death that a Go program dies of
// too (supervisor.Crash.Cause).
var goDeaths = []string{"panic in a goroutine", "stack overflow", "fatal error: concurrent map", "the worker exited with status"}

// splitCells cuts a program into its cells.
func splitCells(prog string) []string {
	if i := strings.Index(prog, "\n// Output:\n"); i >= 0 {
		prog = prog[:i+1]
	} else if i := strings.Index(prog, "\n// Error:\n"); i >= 0 {
		prog = prog[:i+1]
	}
	parts := strings.Split(prog, "// cell\n")
	if len(parts) > 1 {
		parts = parts[1:]
	}
	return parts
}

// The harness's deadlines. A cell that runs for interruptAfter is
// interrupted once (a second interrupt while the client replays the
// session on a fresh worker would kill that one too, and so on until the
// cell's context ended: a 45 s fuzz run stalled so at 486 programs). A
// cell that has not answered cellDeadline after it began is abandoned:
// the session is restarted and must then answer a cell, which counts as
// fine. A program stops taking cells after programDeadline.
const (
	interruptAfter  = 2 * time.Second
	cellDeadline    = 20 * time.Second
	programDeadline = 30 * time.Second
)

// checkCell runs code on c and reports what a user must never see. It
// returns false when the cell outlived cellDeadline (the session was then
// restarted, so the program's later cells would run without its earlier
// ones).
func checkCell(t testing.TB, c *client.Client, code string) bool {
	t.Helper()
	crashes := c.Crashes()
	done := make(chan *workerproto.CellError, 1)
	ctx, cancel := context.WithTimeout(context.Background(), cellDeadline)
	defer cancel()
	go func() {
		res, err := c.Execute(ctx, client.Cell{Code: code, Unlisted: true}, nil)
		if err != nil {
			done <- &workerproto.CellError{Name: "client error", Value: err.Error()}
			return
		}
		done <- res.Error
	}()
	var ce *workerproto.CellError
	select {
	case ce = <-done:
	case <-time.After(interruptAfter):
		c.Interrupt()
		select {
		case ce = <-done: // by cellDeadline, when Execute keeps to its context
		case <-time.After(cellDeadline + 30*time.Second):
			t.Fatalf("Execute did not return %v after its context ended; the cell:\n%s", 30*time.Second, code)
		}
	}
	if ctx.Err() != nil {
		// The cell, or the replay after its interrupt, outlived its
		// deadline: what counts is that the session answers afterwards.
		answers(t, c, code)
		return false
	}
	if ce == nil {
		return true
	}
	text := ce.Name + ": " + ce.Value + "\n" + strings.Join(ce.Traceback, "\n")
	if c.Crashes() > crashes || ce.Name == workerproto.EnameWorkerCrashed {
		for _, d := range goDeaths {
			if strings.HasPrefix(ce.Value, d) {
				return true
			}
		}
		t.Errorf("the worker died running\n%s\n%s", code, text)
		return true
	}
	known := knownGaps.ReplaceAllString(text, "$1")
	for _, s := range insides {
		if strings.Contains(known, s) {
			t.Errorf("error shows %q, running\n%s\n%s", s, code, text)
			return true
		}
	}
	return true
}

// answers restarts c's session after a cell that outlived its deadline and
// checks that the fresh session runs a cell.
func answers(t testing.TB, c *client.Client, code string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := c.Execute(ctx, client.Cell{Code: "%restart", Unlisted: true}, nil); err != nil {
		t.Errorf("%%restart after a cell that ran past %v failed: %v; the cell:\n%s", cellDeadline, err, code)
		return
	}
	var got string
	res, err := c.Execute(ctx, client.Cell{Code: "6 * 7", Unlisted: true}, func(ev workerproto.Event) {
		if ev.Kind == workerproto.EvResult {
			got = ev.Bundle.Text()
		}
	})
	if err != nil || res.Error != nil || got != "42" {
		t.Errorf("after a cell that ran past %v and a %%restart, 6 * 7 = %q, %v, %+v, want 42; the cell:\n%s", cellDeadline, got, err, res.Error, code)
	}
}

// checkProgram runs the cells of prog on c, each checked by checkCell,
// until one outlives its deadline or the program has run programDeadline.
func checkProgram(t testing.TB, c *client.Client, prog string) {
	t.Helper()
	begin := time.Now()
	for _, cell := range splitCells(prog) {
		if !checkCell(t, c, cell) || time.Since(begin) > programDeadline {
			return
		}
	}
}

// seeds returns the cell programs of interp/testdata and testdata/fuzz.
func seeds(t testing.TB) map[string]string {
	progs := map[string]string{}
	for _, pattern := range []string{"../testdata/*.cell", "testdata/fuzz/*.cell"} {
		names, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			progs[name] = string(b)
		}
	}
	return progs
}

var fuzzWorker struct {
	once sync.Once
	c    *client.Client
	runs int
}

// FuzzCells runs random and mutated cell programs through one client,
// each on a fresh worker (%restart).
func FuzzCells(f *testing.F) {
	for _, prog := range seeds(f) {
		f.Add(prog)
	}
	f.Fuzz(func(t *testing.T, prog string) {
		fuzzWorker.once.Do(func() {
			exe, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			fuzzWorker.c, err = client.Start(ctx, client.Config{Command: []string{exe}, Env: []string{"GNNLAB_TEST_WORKER=loop"}})
			if err != nil {
				t.Fatal(err)
			}
		})
		c := fuzzWorker.c
		// Each program on a fresh session: a finding is its cells alone.
		if fuzzWorker.runs++; fuzzWorker.runs > 1 {
			checkCell(t, c, "%restart")
		}
		checkProgram(t, c, prog)
	})
}

// TestFuzzFindings runs each seed program on a fresh worker.
func TestFuzzFindings(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a worker per program")
	}
	for name, prog := range seeds(t) {
		if !strings.HasPrefix(name, "testdata/fuzz/") {
			continue
		}
		t.Run(filepath.Base(name), func(t *testing.T) {
			c, _ := start(t)
			checkProgram(t, c, prog)
		})
	}
}
