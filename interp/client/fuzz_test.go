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
// Each cell runs through the real client and worker, interrupted when it
// runs for more than two seconds, and must fail, if it fails, as Go does:
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
// TestFuzzFindings runs with the seeds.

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

// checkCell runs code on c and reports what a user must never see.
func checkCell(t testing.TB, c *client.Client, code string) {
	t.Helper()
	crashes := c.Crashes()
	done := make(chan *workerproto.CellError, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := c.Execute(ctx, client.Cell{Code: code, Unlisted: true}, nil)
		if err != nil {
			done <- &workerproto.CellError{Name: "client error", Value: err.Error()}
			return
		}
		done <- res.Error
	}()
	var ce *workerproto.CellError
	timer := time.NewTimer(2 * time.Second)
	defer timer.Stop()
wait:
	for {
		select {
		case ce = <-done:
			break wait
		case <-timer.C:
			c.Interrupt()
			timer.Reset(time.Second)
		}
	}
	if ce == nil {
		return
	}
	text := ce.Name + ": " + ce.Value + "\n" + strings.Join(ce.Traceback, "\n")
	if c.Crashes() > crashes || ce.Name == workerproto.EnameWorkerCrashed {
		for _, d := range goDeaths {
			if strings.HasPrefix(ce.Value, d) {
				return
			}
		}
		t.Errorf("the worker died running\n%s\n%s", code, text)
		return
	}
	known := knownGaps.ReplaceAllString(text, "$1")
	for _, s := range insides {
		if strings.Contains(known, s) {
			t.Errorf("error shows %q, running\n%s\n%s", s, code, text)
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
		for _, cell := range splitCells(prog) {
			checkCell(t, c, cell)
		}
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
			for _, cell := range splitCells(prog) {
				checkCell(t, c, cell)
			}
		})
	}
}
