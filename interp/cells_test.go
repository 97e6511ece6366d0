package interp

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A cell program is a file of testdata/*.cell: cells separated by lines
// "// cell", then "// Output:" and what the cells print (their shown values
// included, one a line), or "// Error:" and a line "name: value substring"
// that the first failing cell must match, then substrings of its traceback.
type cellProgram struct {
	cells  []string
	output string
	isErr  bool
	errTop string
	errTB  []string
}

func readProgram(t *testing.T, name string) cellProgram {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	var p cellProgram
	var tail string
	if i := strings.Index(src, "\n// Output:\n"); i >= 0 {
		src, tail = src[:i+1], src[i+len("\n// Output:\n"):]
		p.output = tail
	} else if i := strings.Index(src, "\n// Error:\n"); i >= 0 {
		src, tail = src[:i+1], src[i+len("\n// Error:\n"):]
		p.isErr = true
		lines := strings.Split(strings.TrimRight(tail, "\n"), "\n")
		p.errTop, p.errTB = lines[0], lines[1:]
	} else {
		t.Fatalf("%s: no // Output: or // Error: section", name)
	}
	parts := strings.Split(src, "// cell\n")
	p.cells = append(p.cells, parts[1:]...)
	if len(p.cells) == 0 {
		t.Fatalf("%s: no cells", name)
	}
	return p
}

func TestCellPrograms(t *testing.T) { cellPrograms(t, false) }

// TestCellProgramsUnderDebugger runs the programs with the debugger on
// and no breakpoints: every piece runs in yaegi's Debug, with the same
// output (breakpoint.go).
func TestCellProgramsUnderDebugger(t *testing.T) {
	skipRace(t)
	cellPrograms(t, true)
}

func cellPrograms(t *testing.T, debug bool) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.cell"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata programs (%v)", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".go"), func(t *testing.T) {
			p := readProgram(t, file)
			var out bytes.Buffer
			s, err := New(Options{Stdout: &out, Stderr: &out, Debuggable: debug})
			if err != nil {
				t.Fatal(err)
			}
			if debug {
				s.SetDebug(&DebugOptions{Breakpoints: func(int, string) []int { return nil }})
			}
			var cellErr *Error
			for k, c := range p.cells {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				res, err := s.Eval(ctx, c)
				cancel()
				if err != nil {
					if !errors.As(err, &cellErr) {
						t.Fatalf("cell %d: Eval returned %T %v, want *Error", k+1, err, err)
					}
					break
				}
				if res.HasValue {
					out.WriteString(res.Value.Text() + "\n")
				}
			}
			if p.isErr {
				if cellErr == nil {
					t.Fatalf("no cell failed; output:\n%s", out.String())
				}
				name, value, _ := strings.Cut(p.errTop, ": ")
				if cellErr.Name != name || !strings.Contains(cellErr.Value, value) {
					t.Errorf("error = %q: %q, want %q: ...%q...", cellErr.Name, cellErr.Value, name, value)
				}
				tb := strings.Join(cellErr.Traceback, "\n")
				for _, want := range p.errTB {
					if !strings.Contains(tb, want) {
						t.Errorf("traceback %q lacks %q", tb, want)
					}
				}
				if strings.Contains(tb, "goroutine ") || strings.Contains(tb, "yaegi") {
					t.Errorf("traceback shows interpreter internals: %q", tb)
				}
				return
			}
			if cellErr != nil {
				t.Fatalf("cell failed: %v (traceback %q)\noutput so far:\n%s", cellErr, cellErr.Traceback, out.String())
			}
			if got := out.String(); got != p.output {
				t.Errorf("output:\n%s\nwant:\n%s", got, p.output)
			}
		})
	}
}
