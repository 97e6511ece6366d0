package interp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	yaegi "github.com/traefik/yaegi/interp"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		cell string
		want []bool // decl flag of each piece
	}{
		{"x := 1", []bool{false}},
		{"import \"fmt\"\nfmt.Println(1)", []bool{true, false}},
		{"func f() {}\nf()", []bool{true, false}},
		{"type p struct{ a int }; var v p; v.a = 2", []bool{true, true, false}},
		{"func (p pt) M() {}\nfunc() { println() }()", []bool{true, false}},
		{"for i := 0; i < 3; i++ {\n}\nconst c = 1", []bool{false, true}},
		{"if x := 1; x > 0 {\n} else {\n}", []bool{false}},
		{"func(a int) int { return a }(1)", []bool{false}},
	}
	for _, tt := range tests {
		chunks := split(tt.cell)
		got := make([]bool, len(chunks))
		for k, c := range chunks {
			got[k] = c.decl
		}
		if !equalBools(got, tt.want) {
			t.Errorf("split(%q) decl flags = %v, want %v", tt.cell, got, tt.want)
		}
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

func TestInterrupt(t *testing.T) {
	cells := []string{
		"for {\n}",
		"n := 0\nfor i := 0; i < 1e12; i++ {\n\tn += i\n}",
		"func spin() {\n\tfor {\n\t}\n}\nspin()",
	}
	for _, cell := range cells {
		s := newTestSession(t, Options{})
		mustEval(t, s, "kept := 41")
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		done := make(chan error, 1)
		go func() {
			_, err := s.Eval(ctx, cell)
			done <- err
		}()
		select {
		case err := <-done:
			var e *Error
			if !errors.As(err, &e) || e.Name != nameInterrupted {
				t.Fatalf("Eval(%q) after cancel = %v, want an *Error named %q", cell, err, nameInterrupted)
			}
			if strings.Contains(e.Value, "still running") {
				t.Errorf("Eval(%q): interpreted code did not stop: %v", cell, e)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("Eval(%q) did not return within 30 s of the cancel", cell)
		}
		if res := mustEval(t, s, "kept + 1"); res.Value.Text() != "42" {
			t.Errorf("after interrupt, kept + 1 = %q, want 42", res.Value.Text())
		}
		cancel()
	}
}

func TestStdin(t *testing.T) {
	var out bytes.Buffer
	s := newTestSession(t, Options{Stdin: strings.NewReader("7 ada\nsecond line\n"), Stdout: &out})
	mustEval(t, s, `import (
	"bufio"
	"fmt"
	"os"
)
var n int
var name string
fmt.Scan(&n, &name)
fmt.Println(n*6, name)
r := bufio.NewReader(os.Stdin)
line, _ := r.ReadString('\n')
line, _ = r.ReadString('\n')
fmt.Print(line)`)
	if got, want := out.String(), "42 ada\nsecond line\n"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
}

func TestNoStdin(t *testing.T) {
	var out bytes.Buffer
	s := newTestSession(t, Options{Stdout: &out})
	res := mustEval(t, s, `import (
	"fmt"
	"io"
	"os"
)
var n int
_, err := fmt.Scan(&n)
_, err2 := io.ReadAll(os.Stdin)
err == err2
`)
	if res.Value.Text() != "true" {
		t.Errorf("fmt.Scan and os.Stdin errors differ: %q", res.Value.Text())
	}
	res = mustEval(t, s, "err.Error()")
	if want := `"` + ErrNoStdin.Error() + `"`; res.Value.Text() != want {
		t.Errorf("reading stdin: %s, want %s", res.Value.Text(), want)
	}
}

func TestStdoutStderr(t *testing.T) {
	var out, errOut bytes.Buffer
	s := newTestSession(t, Options{Stdout: &out, Stderr: &errOut})
	mustEval(t, s, `import (
	"fmt"
	"os"
)
fmt.Println("a")
fmt.Fprintln(os.Stdout, "b")
fmt.Fprintln(os.Stderr, "c")
println("d")`)
	if got, want := out.String(), "a\nb\nd\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
	if got, want := errOut.String(), "c\n"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
}

func TestCellNumbers(t *testing.T) {
	s := newTestSession(t, Options{})
	mustEval(t, s, "a := 1")
	_, err := s.Eval(context.Background(), "b := a\nc := nope")
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Eval = %v, want *Error", err)
	}
	if len(e.Traceback) == 0 || !strings.HasPrefix(e.Traceback[0], "cell[2]:2:") {
		t.Errorf("traceback = %q, want it to start with cell[2]:2:", e.Traceback)
	}
}

func TestRenderer(t *testing.T) {
	s := newTestSession(t, Options{})
	res := mustEval(t, s, `import "github.com/gnnlab/gnnlab/viz/display"
type badge struct{ label string }
func (b badge) Render() display.Bundle {
	return display.Bundle{Data: map[string]any{"text/html": "<b>" + b.label + "</b>", "text/plain": b.label}}
}
badge{"ok"}`)
	if got := res.Value.Data["text/html"]; got != "<b>ok</b>" {
		t.Errorf("rendered bundle = %v, want text/html <b>ok</b>", res.Value.Data)
	}
}

func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// A cell that declares a variable and then fails to compile must not break
// the session: yaegi leaves a symbol without a frame slot behind, and every
// later cell used to fail with "index out of range".
func TestFailedDeclarationKeepsSession(t *testing.T) {
	s := newTestSession(t, Options{})
	mustEval(t, s, "x := 2")
	_, err := s.Eval(context.Background(), "f := func() { undefinedName }")
	var e *Error
	if !errors.As(err, &e) || e.Name != "compile error" || !strings.Contains(e.Value, "undefined: undefinedName") {
		t.Fatalf("Eval(undefined name) = %v, want a compile error naming undefinedName", err)
	}
	for cell, want := range map[string]string{"x*21": "42", "y := 3\ny+x": "5"} {
		if got := mustEval(t, s, cell).Value.Text(); got != want {
			t.Errorf("after the failed cell, Eval(%q) = %s, want %s", cell, got, want)
		}
	}
}

func TestDeferPanics(t *testing.T) {
	var out bytes.Buffer
	s := newTestSession(t, Options{Stdout: &out, Stderr: &out})
	mustEval(t, s, `import "fmt"`)
	tests := []struct {
		cell    string
		output  string
		errName string // "" for none
		errText string
	}{
		{"defer fmt.Println(\"deferred after a panic\")\nvar p []int\np[3] = 1", "deferred after a panic\n", nameRuntime, "index out of range"},
		{"fmt.Println(\"after the panic\")", "after the panic\n", "", ""},
		{"defer func() { panic(\"in defer\") }()\nfmt.Println(\"ok\")", "ok\n", namePanic, "in defer"},
		{"fmt.Println(\"once\")", "once\n", "", ""},
	}
	for _, tt := range tests {
		out.Reset()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := s.Eval(ctx, tt.cell)
		cancel()
		if got := out.String(); got != tt.output {
			t.Errorf("Eval(%q) printed %q, want %q", tt.cell, got, tt.output)
		}
		var e *Error
		switch {
		case tt.errName == "" && err != nil:
			t.Errorf("Eval(%q) = %v, want no error", tt.cell, err)
		case tt.errName != "" && (!errors.As(err, &e) || e.Name != tt.errName || !strings.Contains(e.Value, tt.errText)):
			t.Errorf("Eval(%q) = %v, want %s: ...%s...", tt.cell, err, tt.errName, tt.errText)
		}
	}
}

// BenchmarkEval times a trivial cell in a session holding imports and
// variables of compiled and interpreted types.
// BenchmarkEval is a trivial cell's round trip in a session of 20 cells,
// beside the same cell in a bare yaegi interpreter with the same symbols:
// the difference is what the session adds to every cell (its rewrites,
// the type check, the bookkeeping of globals).
func BenchmarkEval(b *testing.B) {
	const setup = "import (\n\"fmt\"\n\"strings\"\n\"github.com/gnnlab/gnnlab/gnnlib/tensor\"\n\"github.com/gnnlab/gnnlab/gnnlib/nn\"\n)\ntype pt struct{ X, Y int }\nfunc (p pt) Sum() int { return p.X + p.Y }"
	cells := []string{setup}
	for i := range 20 {
		cells = append(cells, fmt.Sprintf("v%d := %d\nw%d := tensor.Zeros(2)\np%d := pt{1, 2}\nl%d := nn.NewLinear(2, 2)\ns%d := strings.Repeat(\"a\", 2)", i, i, i, i, i, i))
	}
	b.Run("session", func(b *testing.B) {
		var out bytes.Buffer
		s := newTestSession(b, Options{Stdout: &out, Stderr: &out})
		for _, c := range cells {
			mustEval(b, s, c)
		}
		b.ReportAllocs()
		for b.Loop() {
			mustEval(b, s, "v3 + 1")
		}
	})
	b.Run("yaegi", func(b *testing.B) {
		var out bytes.Buffer
		i := yaegi.New(yaegi.Options{Stdout: &out, Stderr: &out})
		std, gnnlab := symbolTables()
		for _, e := range []yaegi.Exports{std, gnnlab} {
			if err := i.Use(e); err != nil {
				b.Fatal(err)
			}
		}
		for _, c := range cells {
			if _, err := i.Eval(c); err != nil {
				b.Fatalf("yaegi: %q: %v", c, err)
			}
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := i.Eval("v3 + 1"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A Go runtime error is named once: ename "runtime error", and an evalue
// without the same words again (Jupyter shows "ename: evalue").
func TestRuntimeErrorNamedOnce(t *testing.T) {
	s := newTestSession(t, Options{})
	for _, cell := range []string{"var m map[string]int\nm[\"a\"] = 1", "a, b := 1, 0\na / b"} {
		_, err := s.Eval(context.Background(), cell)
		var e *Error
		if !errors.As(err, &e) || e.Name != "runtime error" {
			t.Fatalf("Eval(%q) = %v, want a runtime error", cell, err)
		}
		if strings.HasPrefix(e.Value, "runtime error") {
			t.Errorf("Eval(%q) evalue = %q, repeats the ename", cell, e.Value)
		}
	}
}

// The constants of a cell that failed after declaring them are not
// carried into a rebuilt session as variables (the rebuild failed with
// reflect's words, FuzzCells' seed 6caa965417117764): they are dropped,
// named in the rebuild's note, and the cell that declares them runs again.
func TestRebuildDropsFailedConstants(t *testing.T) {
	var out bytes.Buffer
	s := newTestSession(t, Options{Stdout: &out, Stderr: &out})
	decl := "const (\n\ta, b = iota, iota * 10\n\tc, d\n)\nvar x = func() int { panic(\"init\") }()\n"
	if _, err := s.Eval(context.Background(), decl); err == nil {
		t.Fatal("Eval(var x = a panicking call) succeeded, want a panic")
	}
	mustEval(t, s, "type T struct{ n int }")
	mustEval(t, s, "type T struct{ n, m int }")
	if !strings.Contains(out.String(), "dropped (re-run the cells that set them): a, b, c, d") {
		t.Errorf("rebuild note %q does not name the dropped constants", out.String())
	}
	if got := mustEval(t, s, "T{1, 2}").Value.Text(); got != "{1 2}" {
		t.Errorf("T{1, 2} after the rebuild = %s, want {1 2}", got)
	}
	mustEval(t, s, "const (\n\ta, b = iota, iota * 10\n\tc, d\n)\n")
	if got := mustEval(t, s, "[]int{a, b, c, d}").Value.Text(); got != "[0 0 1 10]" {
		t.Errorf("the constants declared again = %s, want [0 0 1 10]", got)
	}
}
