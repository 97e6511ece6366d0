package interp

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/interp/internal/compiled"
)

// checkoutVersion returns the version of module path that the
// checkout's go.mod requires: the cells' module requires the same, and
// the binary links it.
func checkoutVersion(t *testing.T, path string) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Version}}", path)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off")
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("the checkout does not require %s: %v", path, err)
	}
	return strings.TrimSpace(string(out))
}

// fakeVersions writes versions of module mod that do not exist into the
// module proxy at proxy, each with one package, transform, holding a
// variable Nop, and removes what the go command downloads of them into the
// module cache at the end. The modules that the binary links come from
// the cache as usual.
func fakeVersions(t *testing.T, proxy, mod string, versions ...string) {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	root := strings.TrimSpace(string(out))
	for _, v := range versions {
		writeProxyVersion(t, proxy, mod, v, map[string]string{
			"go.mod":                 "module " + mod + "\n\ngo 1.18\n",
			"transform/transform.go": "package transform\n\n// Nop is not the real one.\nvar Nop = 0\n",
		})
		t.Cleanup(func() {
			files, _ := filepath.Glob(filepath.Join(root, "cache", "download", filepath.FromSlash(mod), "@v", v+".*"))
			for _, f := range files {
				os.Remove(f)
			}
			removeTree(filepath.Join(root, filepath.FromSlash(mod)+"@"+v))
			// The go command lists the versions it downloaded.
			list := filepath.Join(root, "cache", "download", filepath.FromSlash(mod), "@v", "list")
			if b, err := os.ReadFile(list); err == nil {
				os.WriteFile(list, []byte(strings.Replace(string(b), v+"\n", "", 1)), 0o644)
			}
		})
	}
}

// removeTree removes a folder that the go command made read-only.
func removeTree(d string) {
	filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	os.RemoveAll(d)
}

// TestCompiledModuleOlderRequirement: a session whose module requires an
// older version of a module whose packages the binary links (as %go get
// github.com/samber/lo@v1.53.0 requires golang.org/x/text v0.22.0 of a
// binary that links v0.28.0) compiles programs that use its modules
// against the binary's version, as minimal version selection decides;
// one that requires a newer version of it is refused, naming both
// versions. A newer version of a module that the checkout's go.mod lists
// but the binary does not link is taken. The compiled tier refused all
// three before ("it requires golang.org/x/text@v0.22.0, and the binary
// was built with v0.28.0"; github.com/google/uuid v1.6.0 against the
// v1.1.1 that the checkout's go.mod lists).
func TestCompiledModuleOlderRequirement(t *testing.T) {
	needGo(t)
	const linkedMod, unlinkedMod = "github.com/traefik/yaegi", "github.com/google/uuid"
	linked := linkedByTest(t)
	if !linked[linkedMod] || linked[unlinkedMod] {
		t.Skipf("the test binary links %s: %v, %s: %v", linkedMod, linked[linkedMod], unlinkedMod, linked[unlinkedMod])
	}
	t.Cleanup(compiled.SetLinked(linked))
	built := checkoutVersion(t, linkedMod)
	const older, newer, newerUnlinked = "v0.0.0-20000101000000-6e6e6c616230", "v0.999.0", "v1.999.0"
	proxy := t.TempDir()
	fakeVersions(t, proxy, linkedMod, older, newer)
	fakeVersions(t, proxy, unlinkedMod, newerUnlinked)
	t.Setenv("GOPROXY", "file://"+filepath.ToSlash(proxy))
	t.Setenv("GOSUMDB", "off")
	for _, tc := range []struct {
		mod, required string
		compiles      bool
	}{{linkedMod, older, true}, {linkedMod, newer, false}, {unlinkedMod, newerUnlinked, true}} {
		// %go get of the module puts the requirement in the session's
		// go.mod, as %go get github.com/samber/lo does (a local module's
		// requirements stay in its own go.mod).
		dir := t.TempDir()
		files, rename := uniqueModule(map[string]string{
			"go.mod":   "module example.com/greet\n\ngo 1.22\n",
			"greet.go": "package greet\n\nfunc Hello(name string) string { return \"hello, \" + name }\n",
		})
		writeTree(t, dir, files)
		s, out, errw := compiledSession(t)
		if _, err := evalCell(t, s, "%go get "+tc.mod+"@"+tc.required+" "+dir); err != nil {
			t.Fatal(err)
		}
		out.Reset()
		prog := rename.Replace("import (\n\t\"fmt\"\n\n\t\"example.com/greet\"\n)\n\nfunc main() { fmt.Println(greet.Hello(\"mvs\")) }\nmain()")
		if _, err := evalCell(t, s, prog); err != nil || out.String() != "hello, mvs\n" {
			t.Errorf("%s %s: %v, printed %q (stderr %q)", tc.mod, tc.required, err, out.String(), errw.String())
		}
		if got := compiledIn(s, s.count)["main"]; got != tc.compiles {
			t.Errorf("%s %s: compiled %v, want %v (stderr %q)", tc.mod, tc.required, got, tc.compiles, errw.String())
		}
		if !tc.compiles {
			want := "it requires " + tc.mod + "@" + newer + ", newer than the " + built + " the binary was built with"
			if !strings.Contains(errw.String(), want) {
				t.Errorf("stderr %q, want the notice %q", errw.String(), want)
			}
		}
	}
}

// linkedByTest returns the modules whose packages the test binary links
// (go list -deps -test; a test binary's build information names none).
func linkedByTest(t *testing.T) map[string]bool {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-test", "-f", "{{with .Module}}{{.Path}}{{end}}", ".")
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off")
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("go list -deps -test: %v", err)
	}
	m := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		m[p] = true
	}
	return m
}

// loModule is a local module shaped like github.com/samber/lo: generic
// functions in a package that the interpreter refuses (lo imports
// golang.org/x/text/unicode/norm, whose source overflows yaegi's stack;
// here a package that imports unsafe stands in), and a package that uses
// gonum.org/v1/gonum/mat, as github.com/go-gota/gota does (the
// interpreter refuses gonum's internal packages: they import unsafe).
var loModule = map[string]string{
	"go.mod": "module example.com/greet\n\ngo 1.22\n\nrequire gonum.org/v1/gonum " + gonumVersion + "\n",
	"lo.go": `package greet

import "example.com/greet/internal/fast"

// Map maps xs through f, which also gets each index.
func Map[T, R any](xs []T, f func(T, int) R) []R {
	out := make([]R, len(xs))
	for i, x := range xs {
		out[i] = f(x, i)
	}
	return out
}

// Filter keeps the xs that keep holds for.
func Filter[T any](xs []T, keep func(T, int) bool) []T {
	var out []T
	for i, x := range xs {
		if keep(x, i) {
			out = append(out, x)
		}
	}
	return out
}

// Uniq drops repeated values, keeping the first of each.
func Uniq[T comparable](xs []T) []T {
	seen := make(map[T]bool, fast.Size(len(xs)))
	var out []T
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// GroupBy groups xs by key.
func GroupBy[T any, K comparable](xs []T, key func(T) K) map[K][]T {
	out := map[K][]T{}
	for _, x := range xs {
		out[key(x)] = append(out[key(x)], x)
	}
	return out
}

// Answer is an untyped constant; Calls counts the calls of Version.
const Answer = 42

var Calls int

// Version is not generic.
func Version() string { Calls++; return "v1" }

// Ternary is cond ? a : b.
func Ternary[T any](cond bool, a, b T) T {
	if cond {
		return a
	}
	return b
}
`,
	"internal/fast/fast.go": "package fast\n\nimport \"unsafe\"\n\n// Size is n, through unsafe.\nfunc Size(n int) int { return n * int(unsafe.Sizeof(byte(0))) }\n",
	"frame/frame.go": `package frame

import "gonum.org/v1/gonum/mat"

// Table is a type of the package.
type Table struct{ Cols []float64 }

// New returns the column sums as a Table.
func New(rows, cols int, data []float64) Table { return Table{Sums(rows, cols, data)} }

// Sums returns the column sums of a rows×cols matrix of data.
func Sums(rows, cols int, data []float64) []float64 {
	m := mat.NewDense(rows, cols, data)
	out := make([]float64, cols)
	for j := range out {
		out[j] = mat.Sum(m.ColView(j))
	}
	return out
}
`,
}

// gonumVersion is the gonum the binary links (go.mod of the checkout).
const gonumVersion = "v0.17.0"

// TestCompiledOnlyModule: packages of a module that the interpreter
// cannot run are compiled: a cell's functions that use them compile
// (generic calls instantiated by the compiler), later cells call those,
// a program compiles, and each prints what go run prints; the
// interpreter has each such package as a package plugin (its functions,
// types, variables and constants); the generic calls of a cell's
// statements are instantiated in plugins, and print what go run prints;
// one with a type that a cell declares is refused, saying why and what
// works, and the session goes on.
func TestCompiledOnlyModule(t *testing.T) {
	needGo(t)
	if v := checkoutVersion(t, "gonum.org/v1/gonum"); v != gonumVersion {
		t.Skipf("the checkout requires gonum %s, the test's module %s", v, gonumVersion)
	}
	// Offline, the checksum database cannot vouch for gonum: the module
	// cache, which holds what the binary was built from, does.
	t.Setenv("GOSUMDB", "off")
	dir := t.TempDir()
	files, rename := uniqueModule(loModule)
	writeTree(t, dir, files)
	s, out, errw := compiledSession(t)
	if _, err := evalCell(t, s, "%go get "+dir); err != nil {
		t.Fatal(err)
	}
	imports := rename.Replace("import (\n\t\"fmt\"\n\t\"strconv\"\n\n\tlo \"example.com/greet\"\n\t\"example.com/greet/frame\"\n)\n")
	decls := `
func names(xs []int) []string {
	return lo.Map(xs, func(x int, _ int) string { return "n" + strconv.Itoa(x) })
}

func evens(xs []int) []int { return lo.Filter(xs, func(x int, _ int) bool { return x%2 == 0 }) }
func uniq(xs []int) []int  { return lo.Uniq(xs) }
func groups(xs []int) map[int][]int { return lo.GroupBy(xs, func(x int) int { return x % 3 }) }
func sign(x int) string { return lo.Ternary(x < 0, "neg", "pos") }
func sums() []float64 { return frame.Sums(2, 3, []float64{1, 2, 3, 4, 5, 6}) }
`
	stmts := "xs := []int{1, 2, 2, 3, 4, 4, 5}\nfmt.Println(names(xs), evens(xs), uniq(xs), groups(xs), sign(-1), sign(1), sums())\n"
	out.Reset()
	if _, err := evalCell(t, s, imports+decls+stmts); err != nil {
		t.Fatalf("cell of functions: %v (stderr %q)", err, errw.String())
	}
	for _, n := range []string{"names", "evens", "uniq", "groups", "sign", "sums"} {
		if !compiledIn(s, s.count)[n] {
			t.Errorf("%s did not compile (stderr %q)", n, errw.String())
		}
	}
	want := goRunWith(t, dir, rename, imports+decls+"\nfunc main() {\n"+stmts+"}\n")
	if out.String() != want {
		t.Errorf("the cell printed %q, go run %q", out.String(), want)
	}
	// A later cell calls them; a program compiles whole.
	out.Reset()
	if _, err := evalCell(t, s, "fmt.Println(names([]int{7}), sums())"); err != nil || out.String() != "[n7] [5 7 9]\n" {
		t.Errorf("a later cell: %v, printed %q", err, out.String())
	}
	prog := imports + "\nfunc main() {\n\tfmt.Println(lo.Uniq([]string{\"a\", \"b\", \"a\"}), lo.Ternary(true, 1, 2), frame.Sums(1, 2, []float64{3, 4}), strconv.Itoa(5))\n}\n"
	out.Reset()
	if _, err := evalCell(t, s, prog+"main()"); err != nil || !compiledIn(s, s.count)["main"] {
		t.Fatalf("program: %v, compiled %v (stderr %q)", err, compiledIn(s, s.count), errw.String())
	}
	if want := goRunWith(t, dir, rename, prog); out.String() != want {
		t.Errorf("the program printed %q, go run %q", out.String(), want)
	}
	// The interpreter has the packages compiled (package plugins): their
	// functions, types, variables and constants, in statements and in
	// the signatures of compiled functions.
	out.Reset()
	cell := rename.Replace("import lo \"example.com/greet\"\nimport \"example.com/greet/frame\"\nfunc table() frame.Table { return frame.New(1, 2, []float64{3, 4}) }\nfmt.Println(lo.Answer, lo.Version(), lo.Calls, frame.Sums(1, 1, []float64{1}), table().Cols)")
	if _, err := evalCell(t, s, cell); err != nil || out.String() != "42 v1 1 [1] [3 4]\n" || !compiledIn(s, s.count)["table"] {
		t.Errorf("%q: %v, printed %q, compiled %v (stderr %q)", cell, err, out.String(), compiledIn(s, s.count), errw.String())
	}
	// Generic functions in a cell's statements: each call instantiated
	// by the compiler in a plugin of its own, as go run prints.
	stmts = "ws := lo.Map([]int{1, 2, 2}, func(x, _ int) string { return strconv.Itoa(x * 10) })\nfmt.Println(ws, lo.Uniq(ws), lo.Filter(ws, func(w string, i int) bool { return i > 0 }), lo.GroupBy([]float64{1, 2.5, 3}, func(x float64) bool { return x > 2 }), lo.Ternary(len(ws) > 2, \"long\", \"short\"))\n"
	out.Reset()
	if _, err := evalCell(t, s, stmts); err != nil {
		t.Errorf("generic calls in statements: %v (stderr %q)", err, errw.String())
	}
	if want := goRunWith(t, dir, rename, imports+"\nvar _ = frame.Sums\n\nfunc main() {\n"+stmts+"}\n"); out.String() != want {
		t.Errorf("generic calls in statements printed %q, go run %q", out.String(), want)
	}
	// A cell that declares a function with the package (compiled) and
	// calls a generic function in its statements (an instantiation).
	out.Reset()
	if _, err := evalCell(t, s, "func sq(xs []int) []int { return lo.Map(xs, func(x, _ int) int { return x * x }) }\nfmt.Println(sq([]int{2, 3}), lo.Uniq(sq([]int{2, -2})))"); err != nil || out.String() != "[4 9] [4]\n" || !compiledIn(s, s.count)["sq"] {
		t.Errorf("a function and a generic call in one cell: %v, printed %q, compiled %v (stderr %q)", err, out.String(), compiledIn(s, s.count), errw.String())
	}
	out.Reset()
	if _, err := evalCell(t, s, "%compiled"); err != nil || !strings.Contains(out.String(), rename.Replace("package example.com/greet: compiled for the interpreter")) || !strings.Contains(out.String(), "instantiations of generic functions for cells' statements: ") {
		t.Errorf("%%compiled: %v, printed %q, want the package and the instantiations", err, out.String())
	}
	// With a type that a cell declares, which a plugin cannot name:
	// refused, saying why and what works; the session goes on.
	e := evalErr(t, s, "type point struct{ X int }\nfmt.Println(lo.Uniq([]point{{1}, {1}}))")
	if e.Name != nameCompile || !strings.Contains(e.Value, "lo.Uniq is generic") || !strings.Contains(e.Value, "not with a type that a cell declares") {
		t.Errorf("lo.Uniq of a cell's type: %s: %s, want it refused with why and what works", e.Name, e.Value)
	}
	out.Reset()
	if _, err := evalCell(t, s, "fmt.Println(uniq([]int{3, 3}), lo.Calls)"); err != nil || out.String() != "[3] 1\n" {
		t.Errorf("after the refusals: %v, printed %q", err, out.String())
	}
}

// goRunWith runs a program (package main's file, less its package clause)
// with the local module at dir, and returns what it prints.
func goRunWith(t *testing.T, dir string, rename *strings.Replacer, src string) string {
	t.Helper()
	run := t.TempDir()
	writeTree(t, run, map[string]string{
		"go.mod":  rename.Replace("module prog\n\ngo 1.22\n\nrequire example.com/greet v0.0.0\n\nreplace example.com/greet => ") + dir + "\n",
		"main.go": "package main\n\n" + src,
	})
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = run
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off")
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, got)
	}
	return string(got)
}

// TestWhyNotOverflows: a package whose source overflows the interpreter's
// stack, and a package that imports it, are refused before yaegi reads
// them (the stack overflow ended the worker: github.com/samber/lo through
// golang.org/x/text/cases).
func TestWhyNotOverflows(t *testing.T) {
	pkgs := map[string]modPkg{}
	norm := listed{ImportPath: "golang.org/x/text/unicode/norm", GoFiles: []string{"normalize.go"}}
	pkgs[norm.ImportPath] = modPkg{why: whyNot(norm, pkgs)}
	cases := listed{ImportPath: "golang.org/x/text/cases", GoFiles: []string{"cases.go"}, Imports: []string{"golang.org/x/text/unicode/norm"}}
	if why := pkgs[norm.ImportPath].why; !strings.Contains(why, "overflows its stack") {
		t.Errorf("norm: %q, want it refused", why)
	}
	if why := whyNot(cases, pkgs); !strings.Contains(why, "it imports golang.org/x/text/unicode/norm, which the interpreter cannot run") {
		t.Errorf("cases: %q, want it refused for importing norm", why)
	}
}

// TestNetworkSamberLo gets the real github.com/samber/lo from the module
// proxy (GNNLAB_NETWORK_TESTS=1; make test stays offline): its import no
// longer overflows the interpreter's stack (which ended the worker), and
// generic calls in a cell's statements run compiled, functions that use lo.Map, lo.Filter, lo.Uniq,
// lo.GroupBy and lo.Ternary compile, and a program compiles.
func TestNetworkSamberLo(t *testing.T) {
	if os.Getenv("GNNLAB_NETWORK_TESTS") != "1" {
		t.Skip("needs the module proxy: GNNLAB_NETWORK_TESTS=1")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command in PATH")
	}
	s, out, errw := compiledSession(t)
	if _, err := evalCell(t, s, "%go get github.com/samber/lo@v1.53.0"); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if _, err := evalCell(t, s, "import \"github.com/samber/lo\"\nfmt.Println(lo.Uniq([]int{1, 2, 2}), lo.Map([]int{1}, func(x, _ int) string { return fmt.Sprint(x) }))"); err != nil || out.String() != "[1 2] [1]\n" {
		t.Errorf("statement cell: %v, printed %q (stderr %q)", err, out.String(), errw.String())
	}
	out.Reset()
	cell := `import (
	"fmt"
	"strconv"

	"github.com/samber/lo"
)

func names(xs []int) []string {
	return lo.Map(xs, func(x int, _ int) string { return "n" + strconv.Itoa(x) })
}
func evens(xs []int) []int          { return lo.Filter(xs, func(x int, _ int) bool { return x%2 == 0 }) }
func uniq(xs []int) []int           { return lo.Uniq(xs) }
func groups(xs []int) map[int][]int { return lo.GroupBy(xs, func(x int) int { return x % 3 }) }
func sign(x int) string             { return lo.Ternary(x < 0, "neg", "pos") }

xs := []int{1, 2, 2, 3, 4, 4, 5}
fmt.Println(names(xs), evens(xs), uniq(xs), groups(xs), sign(-1))
`
	if _, err := evalCell(t, s, cell); err != nil || out.String() != "[n1 n2 n2 n3 n4 n4 n5] [2 2 4 4] [1 2 3 4 5] map[0:[3] 1:[1 4 4] 2:[2 2 5]] neg\n" {
		t.Errorf("functions: %v, printed %q (stderr %q)", err, out.String(), errw.String())
	}
	out.Reset()
	prog := "import (\n\t\"fmt\"\n\n\t\"github.com/samber/lo\"\n)\n\nfunc main() { fmt.Println(lo.Uniq([]string{\"a\", \"b\", \"a\"}), lo.Ternary(true, 1, 2)) }\nmain()"
	if _, err := evalCell(t, s, prog); err != nil || out.String() != "[a b] 1\n" || !compiledIn(s, s.count)["main"] {
		t.Errorf("program: %v, printed %q, compiled %v (stderr %q)", err, out.String(), compiledIn(s, s.count), errw.String())
	}
}

// TestCompiledModuleFallback: once a package of the modules ran
// interpreted in the session (here with the tier off), later imports of
// the modules' packages run interpreted too, with the tier back on: the
// interpreted package read its dependencies from source, and a compiled
// copy of one would be another package with other types.
func TestCompiledModuleFallback(t *testing.T) {
	needGo(t)
	dir := t.TempDir()
	files, rename := uniqueModule(greetModule)
	writeTree(t, dir, files)
	s, out, errw := compiledSession(t)
	for _, cell := range []string{"%go get " + dir, "%compiled off", rename.Replace("import \"example.com/greet\"\nfmt.Println(greet.Hello(\"a\"))"), "%compiled on", rename.Replace("import \"example.com/greet/shout\"\nfmt.Println(shout.Hello(\"b\"))")} {
		if _, err := evalCell(t, s, cell); err != nil {
			t.Fatalf("%q: %v (stderr %q)", cell, err, errw.String())
		}
	}
	if got := out.String(); !strings.HasSuffix(got, "hello, a\nHELLO, B!\n") {
		t.Errorf("printed %q", got)
	}
	if len(s.compiled.pkgs) != 0 {
		t.Errorf("compiled packages %v, want none after an interpreted one", s.compiled.pkgs)
	}
}
