package interp

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/interp/internal/compiled"
)

// The interpreter's own tests run without the compiled tier (each
// declaration would cost a plugin build); the tests of the tier turn it
// on for their sessions.
func TestMain(m *testing.M) {
	CompiledOff = true
	os.Exit(m.Run())
}

// compiledSession is a session with the compiled tier on; it skips the
// test where the tier cannot work (no toolchain, no plugins).
func compiledSession(t *testing.T) (*Session, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	if _, err := compiled.Detect(); err != nil {
		t.Skipf("no compiled tier here: %v", err)
	}
	var out, errw bytes.Buffer
	s, err := New(Options{Stdout: &out, Stderr: &errw, Stdin: strings.NewReader("")})
	if err != nil {
		t.Fatal(err)
	}
	s.compiled.force = true
	t.Cleanup(func() { s.Close() })
	return s, &out, &errw
}

func evalCell(t *testing.T, s *Session, cell string) (Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	return s.Eval(ctx, cell)
}

// compiledNames returns the names that the tier compiled in cell n.
func compiledIn(s *Session, n int) map[string]bool {
	got := map[string]bool{}
	if s.compiled.tier == nil {
		return got
	}
	for _, d := range s.compiled.tier.Log() {
		if d.Compiled && d.In == n {
			got[d.Name] = true
		}
	}
	return got
}

func TestCompiledCells(t *testing.T) {
	s, out, errw := compiledSession(t)
	steps := []struct {
		cell     string
		out      string
		compiled []string // names compiled by this cell
		err      string   // part of the error, "" for none
		trace    []string // lines the error's traceback must hold
	}{
		{cell: "import \"fmt\"\nfunc fib(n int) int {\n\tif n < 2 {\n\t\treturn n\n\t}\n\treturn fib(n-1) + fib(n-2)\n}\nfmt.Println(fib(20))", out: "6765\n", compiled: []string{"fib"}},
		// Types with their methods, state in a package-level variable
		// that interpreted statements then read and write.
		{cell: "type Point struct{ X, Y int }\nfunc (p Point) Sum() int { return p.X + p.Y }\nvar Count int\nfunc bump() int { Count++; return Count }", compiled: []string{"Point", "Point.Sum", "Count", "bump"}},
		{cell: "p := Point{1, 2}\nbump()\nCount += 10\nfmt.Println(p.Sum(), bump(), Count)", out: "3 12 12\n"},
		// Redefinition takes effect for the cells after it, in compiled
		// callers too (they are compiled again with it).
		{cell: "func twice(n int) int { return 2 * fib(n) }\nfmt.Println(twice(10))", out: "110\n", compiled: []string{"twice"}},
		{cell: "func fib(n int) int { return n }", compiled: []string{"fib", "twice"}},
		{cell: "fmt.Println(fib(10), twice(10))", out: "10 20\n"},
		// A panic in compiled code is the cell's error; the session stays.
		{cell: "func main() {\n\tvar a []int\n\tfmt.Println(a[3])\n}", err: "index out of range [3] with length 0"},
		{cell: "func deref() int {\n\tvar p *int\n\treturn *p\n}\nderef()", err: "nil pointer dereference", compiled: []string{"deref"}},
		{cell: "func inner(a []int) int {\n\treturn a[5]\n}\nfunc outer() int {\n\treturn inner(nil) + 1\n}\nouter()", err: "index out of range [5] with length 0", compiled: []string{"inner", "outer"},
			trace: []string{"cell[9]:2: in inner", "cell[9]:5: in outer"}},
		{cell: "fmt.Println(Count)", out: "12\n"},
	}
	for i, st := range steps {
		out.Reset()
		_, err := evalCell(t, s, st.cell)
		switch {
		case st.err == "" && err != nil:
			t.Fatalf("cell %d: %v (stderr %q)", i+1, err, errw.String())
		case st.err != "" && (err == nil || !strings.Contains(err.Error(), st.err)):
			t.Fatalf("cell %d: error %v, want one holding %q", i+1, err, st.err)
		}
		var e *Error
		if errors.As(err, &e) {
			tb := strings.Join(e.Traceback, "\n")
			for _, l := range st.trace {
				if !strings.Contains(tb, l) {
					t.Errorf("cell %d: traceback\n%s\nwant a line %q", i+1, tb, l)
				}
			}
		}
		if out.String() != st.out {
			t.Errorf("cell %d printed %q, want %q", i+1, out.String(), st.out)
		}
		got := compiledIn(s, s.count)
		for _, n := range st.compiled {
			if !got[n] {
				t.Errorf("cell %d: %s not compiled (compiled: %v; stderr %q)", i+1, n, got, errw.String())
			}
		}
	}
	if errw.Len() != 0 {
		t.Errorf("notices on stderr: %q", errw.String())
	}
}

func TestCompiledFallbackNotice(t *testing.T) {
	s, out, errw := compiledSession(t)
	cells := []string{
		"import \"fmt\"\nscale := 3",
		// uses the interpreted variable scale: runs interpreted, with a notice
		"func times(n int) int { return n * scale }\nfmt.Println(times(2))",
		"func plus(n int) int { return n + scale }\nfmt.Println(plus(2))",
	}
	for _, c := range cells {
		if _, err := evalCell(t, s, c); err != nil {
			t.Fatal(err)
		}
	}
	if out.String() != "6\n5\n" {
		t.Errorf("printed %q, want %q", out.String(), "6\n5\n")
	}
	notice := "gnnlab: running interpreted (not compiled): it uses scale, which an interpreted cell declared\n"
	if errw.String() != notice {
		t.Errorf("stderr %q, want the notice once: %q", errw.String(), notice)
	}
}

func TestCompiledInterrupt(t *testing.T) {
	s, out, _ := compiledSession(t)
	// A loop with no end, a counted loop (checked every 4,096
	// iterations) and a recursion without loops.
	if _, err := evalCell(t, s, "import \"fmt\"\nvar N int\nfunc spin() {\n\tfor {\n\t\tN++\n\t}\n}\nfunc count() {\n\tfor i := 0; i < 1<<62; i++ {\n\t\tN += i & 1\n\t}\n}\nfunc fib(n int) int {\n\tif n < 2 {\n\t\treturn n\n\t}\n\treturn fib(n-1) + fib(n-2)\n}"); err != nil {
		t.Fatal(err)
	}
	for _, call := range []string{"spin()", "count()", "fib(80)"} {
		out.Reset()
		ctx, cancel := context.WithCancel(context.Background())
		var cancelled time.Time
		go func() { time.Sleep(300 * time.Millisecond); cancelled = time.Now(); cancel() }()
		_, err := s.Eval(ctx, call)
		// A timing, logged (never asserted): the target is 0.5 s.
		t.Logf("%s: the cell ended %v after the interrupt", call, time.Since(cancelled))
		var e *Error
		if !errors.As(err, &e) || e.Name != nameInterrupted {
			t.Fatalf("Eval(%s) = %v, want an interrupt", call, err)
		}
		if strings.Contains(e.Value, "still running") {
			t.Errorf("%s: the compiled code did not stop: %s", call, e.Value)
		}
		if _, err := evalCell(t, s, "fmt.Println(N > 0, fib(10))"); err != nil {
			t.Fatal(err)
		}
		if out.String() != "true 55\n" {
			t.Errorf("after interrupting %s: %q, want %q", call, out.String(), "true 55\n")
		}
	}
}

func TestCompiledMagic(t *testing.T) {
	s, out, _ := compiledSession(t)
	cells := []string{
		"import \"fmt\"\nscale := 3",
		"func times(n int) int { return n * scale }",
		"func square(n int) int { return n * n }",
		"%compiled off",
		"func cube(n int) int { return n * n * n }\nfmt.Println(cube(2), square(3), times(1))",
		"%compiled on",
	}
	for _, c := range cells {
		if _, err := evalCell(t, s, c); err != nil {
			t.Fatalf("%q: %v", c, err)
		}
	}
	if out.String() != "8 9 3\n" {
		t.Errorf("printed %q, want %q", out.String(), "8 9 3\n")
	}
	out.Reset()
	if _, err := evalCell(t, s, "%compiled"); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"compiled tier: on: 1 plugins loaded",
		"times   interpreted  it uses scale, which an interpreted cell declared",
		"square  compiled     compiled (in cell 3's plugin)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("%%compiled printed\n%s\nwant a line holding %q", got, want)
		}
	}
	if strings.Contains(got, "cube") {
		t.Errorf("%%compiled lists cube, declared with the tier off:\n%s", got)
	}
	if _, err := evalCell(t, s, "%compiled sideways"); err == nil {
		t.Errorf("%%compiled sideways: no error")
	}
}

func TestCompiledVariables(t *testing.T) {
	s, out, errw := compiledSession(t)
	cells := []string{
		"import \"fmt\"\nvar total int\nfunc add(n int) { total += n }",
		"add(2)\np := &total\n*p += 3\ntotal++\nfmt.Sscan(\"7\", &total)\nadd(1)\nfmt.Println(total, *p)",
		// variables alone are not worth a plugin: interpreted, no notice
		"var name string\nfmt.Sscan(\"bob\", &name)\nfmt.Println(name)",
	}
	for _, c := range cells {
		if _, err := evalCell(t, s, c); err != nil {
			t.Fatalf("%q: %v (%s)", c, err, errw)
		}
	}
	if want := "8 8\nbob\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
	if !compiledIn(s, 1)["total"] || compiledIn(s, 3)["name"] {
		t.Errorf("compiled: %v in cell 1, %v in cell 3; want total only", compiledIn(s, 1), compiledIn(s, 3))
	}
	if errw.Len() != 0 {
		t.Errorf("stderr: %q", errw)
	}
}

// moduleRuns numbers the test modules that compiled cells link, so that
// each run of a test (go test -count=2) has modules of its own: a process
// loads one build of a package, and the same module in another temporary
// folder is another build (positions are part of it). A user's worker is
// one session (%restart starts another process), so this is the test's
// own reuse of one process; a module changed within a session is
// TestCompiledModuleChanged.
var moduleRuns int

// uniqueModule returns the files of the module example.com/greet (and
// a text naming it) with the module's path made unique to this run.
func uniqueModule(files map[string]string) (map[string]string, *strings.Replacer) {
	moduleRuns++
	r := strings.NewReplacer("example.com/greet", "example.com/run"+strconv.Itoa(moduleRuns)+"/greet")
	out := map[string]string{}
	for name, text := range files {
		out[name] = r.Replace(text)
	}
	return out, r
}

// TestCompiledModule: the packages of a module added by %go get run
// compiled: a cell's function that uses one compiles, the generic calls
// of a cell's statements are instantiated in plugins, and a program
// prints what go run prints.
func TestCompiledModule(t *testing.T) {
	needGo(t)
	dir := t.TempDir()
	files, rename := uniqueModule(greetModule)
	// A generic package, as in github.com/samber/lo.
	files["generic/generic.go"] = "package generic\n\n// Map applies f to each of xs.\nfunc Map[T, U any](xs []T, f func(T) U) []U {\n\tout := make([]U, 0, len(xs))\n\tfor _, x := range xs {\n\t\tout = append(out, f(x))\n\t}\n\treturn out\n}\n"
	writeTree(t, dir, files)
	s, out, errw := compiledSession(t)
	if _, err := evalCell(t, s, "%go get "+dir); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if _, err := evalCell(t, s, rename.Replace("import \"fmt\"\nimport \"example.com/greet\"\nfunc hi() string { return greet.Hello(\"go\") }\nfmt.Println(hi())")); err != nil {
		t.Fatal(err)
	}
	if out.String() != "hello, go\n" {
		t.Errorf("printed %q, want %q", out.String(), "hello, go\n")
	}
	// The package runs compiled (a package plugin), so the function that
	// uses it compiles, with no notice.
	if !compiledIn(s, s.count)["hi"] || errw.Len() != 0 {
		t.Errorf("hi: compiled %v, stderr %q; want it compiled, no notice", compiledIn(s, s.count), errw.String())
	}
	// A call of the module's generic function in a cell's statements,
	// with its type arguments written or inferred: each instantiation is
	// compiled (yaegi's inference failed on the interpreted package).
	out.Reset()
	errw.Reset()
	if _, err := evalCell(t, s, rename.Replace("import \"example.com/greet/generic\"\nimport \"strings\"\nfmt.Println(generic.Map[string, string]([]string{\"a\", \"bc\"}, strings.ToUpper), generic.Map([]int{1, 2}, func(n int) float64 { return float64(n) / 4 }))")); err != nil || out.String() != "[A BC] [0.25 0.5]\n" {
		t.Errorf("generic calls in statements: %v, printed %q (stderr %q)", err, out.String(), errw.String())
	}
	// A program that imports the module compiles whole, the module's
	// packages in its plugin, and prints what go run prints with the
	// same module (built by the toolchain beside it).
	prog := "import (\n\t\"fmt\"\n\t\"strings\"\n\n\t\"example.com/greet\"\n\t\"example.com/greet/generic\"\n\t\"example.com/greet/shout\"\n)\n\nfunc main() {\n\tfmt.Println(greet.Hello(\"go\"), shout.Hello(\"plugins\"))\n\tfmt.Println(generic.Map([]string{\"a\", \"bc\"}, strings.ToUpper), generic.Map([]int{1, 2}, func(n int) float64 { return float64(n) / 4 }))\n}\n"
	prog = rename.Replace(prog)
	out.Reset()
	errw.Reset()
	if _, err := evalCell(t, s, prog+"main()"); err != nil {
		t.Fatalf("program: %v (stderr %q)", err, errw.String())
	}
	if !compiledIn(s, s.count)["main"] {
		t.Errorf("the program importing the module did not compile (stderr %q)", errw.String())
	}
	run := t.TempDir()
	writeTree(t, run, map[string]string{
		"go.mod":  rename.Replace("module prog\n\ngo 1.22\n\nrequire example.com/greet v0.0.0\n\nreplace example.com/greet => ") + dir + "\n",
		"main.go": "package main\n\n" + prog,
	})
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = run
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off")
	want, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, want)
	}
	if out.String() != string(want) {
		t.Errorf("the compiled program printed %q, go run %q", out.String(), want)
	}
	// The cells' module, which now requires the module, still builds
	// the other cells.
	if _, err := evalCell(t, s, "func twice(n int) int { return 2 * n }"); err != nil || !compiledIn(s, s.count)["twice"] {
		t.Errorf("a later cell: %v, compiled %v (stderr %q)", err, compiledIn(s, s.count), errw.String())
	}
}

// TestCompiledModuleChanged: a local module edited (and got again) after
// a compiled program linked it. The process keeps the build it loaded:
// the direct builder links the archive it listed first; the go command
// builds the module again, the plugin does not load, and the program
// runs interpreted with a notice naming the package and why (it said
// "was the binary built from ... as it is now?" before). Both print
// what the first build prints, as interpreted cells do (yaegi keeps the
// package it read) until %restart.
func TestCompiledModuleChanged(t *testing.T) {
	for _, goCommand := range []bool{false, true} {
		t.Run(map[bool]string{false: "direct", true: "go build"}[goCommand], func(t *testing.T) { testCompiledModuleChanged(t, goCommand) })
	}
}

func testCompiledModuleChanged(t *testing.T, goCommand bool) {
	needGo(t)
	dir := t.TempDir()
	files, rename := uniqueModule(map[string]string{
		"go.mod": "module example.com/greet\n\ngo 1.22\n",
		"v.go":   "package greet\n\nfunc V() int { return 1 }\n",
	})
	writeTree(t, dir, files)
	s, out, errw := compiledSession(t)
	s.compiled.goCommand = goCommand
	if _, err := evalCell(t, s, "%go get "+dir); err != nil {
		t.Fatal(err)
	}
	prog := rename.Replace("import (\n\t\"fmt\"\n\n\t\"example.com/greet\"\n)\n\nfunc main() { fmt.Println(greet.V()) }\nmain()")
	out.Reset()
	if _, err := evalCell(t, s, prog); err != nil || out.String() != "1\n" || !compiledIn(s, s.count)["main"] {
		t.Fatalf("first program: %v, printed %q, compiled %v (stderr %q)", err, out.String(), compiledIn(s, s.count), errw.String())
	}
	writeTree(t, dir, map[string]string{"v.go": "package greet\n\nfunc V() int { return 2 }\n"})
	if _, err := evalCell(t, s, "%go get "+dir); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errw.Reset()
	if _, err := evalCell(t, s, prog); err != nil {
		t.Fatalf("second program: %v (stderr %q)", err, errw.String())
	}
	if out.String() != "1\n" {
		t.Errorf("second program printed %q, want the first build's 1", out.String())
	}
	if strings.Contains(errw.String(), "was the binary built") {
		t.Errorf("the notice blames the binary: %q", errw.String())
	}
	if !goCommand {
		if !compiledIn(s, s.count)["main"] || errw.Len() != 0 {
			t.Errorf("direct builder: compiled %v, stderr %q; want main compiled, no notice", compiledIn(s, s.count), errw.String())
		}
		return
	}
	want := rename.Replace("gnnlab: running interpreted (not compiled): a cell's plugin does not load: it links package example.com/greet as its module is now, and an earlier compiled cell of this session loaded the package as it was then")
	if !strings.HasPrefix(errw.String(), want) || !strings.Contains(errw.String(), "until %restart") {
		t.Errorf("stderr %q, want the notice %q... until %%restart", errw.String(), want)
	}
}

// TestCompiledModuleVersion: %go get of another version of a module that
// a compiled program linked. The cells' module takes the new requirement
// (it was refused as if the binary had been built with the old version),
// and the program keeps the version it loaded, as TestCompiledModuleChanged
// says. The versions come from a module proxy that the test writes; the
// module cache is the user's (the plugins link the checkout's modules
// from it), so the test removes what it downloaded.
func TestCompiledModuleVersion(t *testing.T) {
	for _, goCommand := range []bool{false, true} {
		t.Run(map[bool]string{false: "direct", true: "go build"}[goCommand], func(t *testing.T) { testCompiledModuleVersion(t, goCommand) })
	}
}

func testCompiledModuleVersion(t *testing.T, goCommand bool) {
	needGo(t)
	_, rename := uniqueModule(nil)
	mod := rename.Replace("example.com/greet")
	proxy := t.TempDir()
	for _, v := range []string{"v1.0.0", "v1.1.0"} {
		writeProxyVersion(t, proxy, mod, v, map[string]string{
			"go.mod":   "module " + mod + "\n\ngo 1.22\n",
			"greet.go": "package greet\n\nfunc Version() string { return \"" + v + "\" }\n",
		})
	}
	cache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, d := range []string{filepath.Join(strings.TrimSpace(string(cache)), filepath.FromSlash(path.Dir(mod))), filepath.Join(strings.TrimSpace(string(cache)), "cache", "download", filepath.FromSlash(path.Dir(mod)))} {
			filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
				if err == nil && e.IsDir() {
					os.Chmod(p, 0o755) // the go command makes them read-only
				}
				return nil
			})
			os.RemoveAll(d)
			os.Remove(filepath.Dir(d)) // example.com, if the test made it
		}
	})
	t.Setenv("GOPROXY", "file://"+filepath.ToSlash(proxy))
	t.Setenv("GOSUMDB", "off")
	s, out, errw := compiledSession(t)
	s.compiled.goCommand = goCommand
	prog := "import (\n\t\"fmt\"\n\n\t\"" + mod + "\"\n)\n\nfunc main() { fmt.Println(greet.Version()) }\nmain()"
	if _, err := evalCell(t, s, "%go get "+mod+"@v1.0.0"); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if _, err := evalCell(t, s, prog); err != nil || out.String() != "v1.0.0\n" || !compiledIn(s, s.count)["main"] {
		t.Fatalf("first program: %v, printed %q, compiled %v (stderr %q)", err, out.String(), compiledIn(s, s.count), errw.String())
	}
	if _, err := evalCell(t, s, "%go get "+mod+"@v1.1.0"); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errw.Reset()
	if _, err := evalCell(t, s, prog); err != nil || out.String() != "v1.0.0\n" {
		t.Errorf("second program: %v, printed %q, want the loaded v1.0.0 (stderr %q)", err, out.String(), errw.String())
	}
	if strings.Contains(errw.String(), "could not be required") || strings.Contains(errw.String(), "was the binary built") {
		t.Errorf("the notice blames the binary: %q", errw.String())
	}
	if goCommand {
		if want := "it links package " + mod + " as its module is now"; !strings.Contains(errw.String(), want) {
			t.Errorf("stderr %q, want the notice %q", errw.String(), want)
		}
	} else if !compiledIn(s, s.count)["main"] {
		t.Errorf("direct builder: the second program did not compile (stderr %q)", errw.String())
	}
}

// TestCompiledStdin: compiled code reads the session's input.
func TestCompiledStdin(t *testing.T) {
	if _, err := compiled.Detect(); err != nil {
		t.Skipf("no compiled tier here: %v", err)
	}
	var out bytes.Buffer
	s, err := New(Options{Stdout: &out, Stderr: &out, Stdin: strings.NewReader("41\nbob\n")})
	if err != nil {
		t.Fatal(err)
	}
	s.compiled.force = true
	t.Cleanup(func() { s.Close() })
	cell := "import (\n\t\"bufio\"\n\t\"fmt\"\n\t\"os\"\n)\nfunc read() (int, string) {\n\tvar n int\n\tfmt.Scanln(&n)\n\tname, _ := bufio.NewReader(os.Stdin).ReadString('\\n')\n\treturn n, name\n}\nfmt.Println(read())"
	if _, err := evalCell(t, s, cell); err != nil {
		t.Fatal(err)
	}
	if want := "41 bob\n\n"; out.String() != want || !compiledIn(s, 1)["read"] {
		t.Errorf("printed %q (read compiled: %v), want %q", out.String(), compiledIn(s, 1)["read"], want)
	}
}

// TestCompiledLayerVariable: a variable holding a pointer to a library
// struct, with a function that uses it and statements that select its
// fields, as notebook 01 declares its layers: yaegi cannot select a field
// through a compiled variable's pointer ("undefined selector W"), so the
// cell runs interpreted with a notice, and runs right.
func TestCompiledLayerVariable(t *testing.T) {
	s, out, errw := compiledSession(t)
	cells := []string{
		"import (\"fmt\"; \"github.com/gnnlab/gnnlab/gnnlib/nn\"; \"github.com/gnnlab/gnnlab/gnnlib/tensor\")",
		"var l1 = nn.NewLinear(2, 3)\nfunc f(X *tensor.Tensor) *tensor.Tensor { return X.MatMul(l1.W) }\nps := []*tensor.Tensor{l1.W, l1.B}\nfmt.Println(len(ps), f(tensor.Zeros(1, 2)).Shape())",
		"fmt.Println(l1.W.Shape())",
	}
	for _, c := range cells {
		if _, err := evalCell(t, s, c); err != nil {
			t.Fatalf("%q: %v (%s)", c, err, errw)
		}
	}
	if want := "2 [1 3]\n[2 3]\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
	if !strings.Contains(errw.String(), "variable l1") {
		t.Errorf("stderr %q, want the notice naming l1", errw)
	}
}

// TestFlagsRunTwice: a program that defines flags and parses them runs
// twice in one session, compiled and interpreted, printing the defaults
// as go run does each time (on the process's flag.CommandLine the second
// run panicked: "flag redefined"), and both kinds of cell share one set.
func TestFlagsRunTwice(t *testing.T) {
	for k := range compiled.FlagFuncs {
		if _, ok := flagExports["flag/flag"][k]; !ok {
			t.Errorf("flag.%s is cellrt's in compiled cells but not in interpreted ones", k)
		}
	}
	if len(flagExports["flag/flag"]) != len(compiled.FlagFuncs) {
		t.Errorf("%d flag functions for interpreted cells, %d for compiled ones", len(flagExports["flag/flag"]), len(compiled.FlagFuncs))
	}
	prog := "import (\n\t\"flag\"\n\t\"fmt\"\n)\n\nvar n = flag.Int(\"n\", 3, \"how many\")\n\nfunc main() {\n\tflag.Parse()\n\tfmt.Println(*n, flag.NArg(), flag.Parsed())\n}\n"
	for _, mode := range []string{"compiled", "interpreted"} {
		t.Run(mode, func(t *testing.T) {
			s, out, errw := compiledSession(t)
			if mode == "interpreted" {
				s.compiled.force = false
				s.compiled.off = true
				s.compiled.init = true
			}
			for run := 1; run <= 2; run++ {
				out.Reset()
				if _, err := evalCell(t, s, prog+"main()"); err != nil {
					t.Fatalf("run %d: %v (stderr %q)", run, err, errw.String())
				}
				if got := out.String(); got != "3 0 true\n" {
					t.Errorf("run %d printed %q, want %q", run, got, "3 0 true\n")
				}
			}
			if mode == "compiled" && !compiledIn(s, s.count)["main"] {
				t.Errorf("main not compiled (stderr %q)", errw.String())
			}
			// An interpreted statement sees the flags of the compiled
			// program: one set for both.
			out.Reset()
			if _, err := evalCell(t, s, "fmt.Println(flag.Lookup(\"n\").DefValue)"); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != "3\n" {
				t.Errorf("flag.Lookup(n) in a statement printed %q, want 3", got)
			}
		})
	}
}

// TestCompiledOldClosure: a closure made by a compiled function that
// was redefined since runs after the kernel has dropped the pages of
// every plugin (their files long removed), as do the new definition and
// a panic in the old closure passed to a compiled function, whose
// traceback still names the closure's cell line (read from the dropped
// pclntab).
func TestCompiledOldClosure(t *testing.T) {
	s, out, errw := compiledSession(t)
	cells := []string{
		"import \"fmt\"\nfunc mk(k int) func(int) int {\n\treturn func(x int) int {\n\t\tif x < 0 {\n\t\t\tpanic(\"negative\")\n\t\t}\n\t\treturn x*k + 1\n\t}\n}\nfunc apply(f func(int) int, x int) int {\n\treturn f(x)\n}",
		"old := mk(3)",
		"func mk(k int) func(int) int { return func(x int) int { return x - k } }",
		"func mk(k int) func(int) int { return func(x int) int { return x * x * k } }",
	}
	for _, c := range cells {
		if _, err := evalCell(t, s, c); err != nil {
			t.Fatalf("%q: %v (%s)", c, err, errw)
		}
	}
	if len(s.compiled.plugins) != 3 {
		t.Fatalf("%d plugins, want 3 (stderr %q)", len(s.compiled.plugins), errw)
	}
	for _, p := range s.compiled.plugins {
		if p.DropPages() == 0 && runtime.GOOS == "linux" {
			t.Errorf("no pages of %s advised", p.Path)
		}
	}
	out.Reset()
	if _, err := evalCell(t, s, "fmt.Println(old(5), mk(2)(3))"); err != nil {
		t.Fatalf("%v (%s)", err, errw)
	}
	if want := "16 18\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
	_, err := evalCell(t, s, "apply(old, -1)")
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "negative") || !strings.Contains(strings.Join(e.Traceback, "\n"), "cell[1]:5") {
		t.Errorf("apply(old, -1): %v, want the panic \"negative\" at cell[1]:5", err)
		if e != nil {
			t.Logf("traceback:\n%s", strings.Join(e.Traceback, "\n"))
		}
	}
}

// TestCompiledEmbed: //go:embed in a cell compiles, reading the files
// from the session's working directory (the notebook's folder), and the
// program prints what go run prints with the same files beside it; later
// cells read the embedded variables. What it does not compile (a glob,
// a missing file, an embed.FS) runs interpreted with a notice. Both
// builders: the compiler run directly (an embed configuration) and the
// go command (the files copied into the cell's package).
func TestCompiledEmbed(t *testing.T) {
	for _, goCommand := range []bool{false, true} {
		t.Run(map[bool]string{false: "direct", true: "go build"}[goCommand], func(t *testing.T) { testCompiledEmbed(t, goCommand) })
	}
}

func testCompiledEmbed(t *testing.T, goCommand bool) {
	files := map[string]string{
		"hello.txt":    "hi there,\nnotebook\n",
		"data/raw.bin": "\x00\x01\xfe\xff",
	}
	dir := t.TempDir()
	writeTree(t, dir, files)
	t.Chdir(dir)
	s, out, errw := compiledSession(t)
	s.compiled.goCommand = goCommand
	decls := "import (\n\t_ \"embed\"\n\t\"fmt\"\n)\n\n//go:embed hello.txt\nvar hello string\n\n//go:embed \"data/raw.bin\"\nvar raw []byte\n\nfunc show() {\n\tfmt.Printf(\"%q %v %d\\n\", hello, raw, len(hello)+len(raw))\n}\n"
	if _, err := evalCell(t, s, decls+"show()"); err != nil {
		t.Fatalf("cell: %v (stderr %q)", err, errw.String())
	}
	if got := compiledIn(s, 1); !got["hello"] || !got["raw"] || !got["show"] {
		t.Errorf("compiled in cell 1: %v, want hello, raw and show (stderr %q)", got, errw.String())
	}
	if p := s.compiled.plugins[0]; p.Direct == goCommand {
		t.Errorf("plugin built directly: %v, want %v", p.Direct, !goCommand)
	}
	run := t.TempDir()
	writeTree(t, run, files)
	writeTree(t, run, map[string]string{
		"go.mod":  "module prog\n\ngo 1.22\n",
		"main.go": "package main\n\n" + decls + "\nfunc main() { show() }\n",
	})
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = run
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOPROXY=off")
	want, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, want)
	}
	if out.String() != string(want) {
		t.Errorf("the compiled cell printed %q, go run %q", out.String(), want)
	}
	out.Reset()
	if _, err := evalCell(t, s, "fmt.Println(len(hello), raw[3])"); err != nil || out.String() != "19 255\n" {
		t.Errorf("a later cell printed %q, %v; want \"19 255\\n\"", out.String(), err)
	}
	// A later cell that runs interpreted (a type with an unexported
	// field) reaches the variable in the plugin (declared again
	// interpreted, it would be empty).
	out.Reset()
	if _, err := evalCell(t, s, "type holder struct{ s string }\nfunc (h holder) get() string { return h.s + hello }\nfmt.Println(len(holder{}.get()))"); err != nil || out.String() != "19\n" {
		t.Errorf("an interpreted cell printed %q, %v; want 19 (stderr %q)", out.String(), err, errw.String())
	}
	// Before any statement runs, a later cell's plugin declares the
	// variable again, embedding the file again.
	s2, out2, errw2 := compiledSession(t)
	s2.compiled.goCommand = goCommand
	if _, err := evalCell(t, s2, "import (\n\t_ \"embed\"\n\t\"fmt\"\n)\n//go:embed hello.txt\nvar hello string\nfunc first() int { return len(hello) }"); err != nil {
		t.Fatal(err)
	}
	if _, err := evalCell(t, s2, "func second() int { return len(hello) + 1 }\nfmt.Println(first(), second())"); err != nil || out2.String() != "19 20\n" || !compiledIn(s2, 2)["second"] || !compiledIn(s2, 2)["hello"] {
		t.Errorf("a later compiled cell printed %q, %v, compiled %v; want 19 20, second and hello compiled (stderr %q)", out2.String(), err, compiledIn(s2, 2), errw2.String())
	}
	for _, tt := range []struct{ cell, notice string }{
		{"import _ \"embed\"\n//go:embed *.txt\nvar txt string\nfunc f() string { return txt }", "//go:embed *.txt: only a plain file path is compiled (no glob, no \"..\")"},
		{"import _ \"embed\"\n//go:embed missing.txt\nvar m string\nfunc g() string { return m }", "//go:embed missing.txt: no such file in "},
		{"import _ \"embed\"\n//go:embed data\nvar d []byte\nfunc dd() []byte { return d }", "//go:embed data: a directory: only a file is compiled"},
		{"import \"embed\"\n//go:embed hello.txt\nvar fsys embed.FS\nfunc h() embed.FS { return fsys }", "//go:embed into an embed.FS is not compiled yet"},
	} {
		errw.Reset()
		// The interpreter cannot embed: the session's error says so.
		if _, err := evalCell(t, s, tt.cell); err == nil || !strings.Contains(err.Error(), `package "embed" is not available to interpreted cells`) {
			t.Errorf("cell %q: error %v, want the session's that embed is not available to interpreted cells", tt.cell, err)
		}
		if !strings.Contains(errw.String(), "gnnlab: running interpreted (not compiled): "+tt.notice) {
			t.Errorf("cell %q: stderr %q, want the notice %q", tt.cell, errw.String(), tt.notice)
		}
		s.compiled.said = nil // the notice is said once per kind
	}
}
