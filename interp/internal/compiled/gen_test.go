package compiled

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// parseDecl parses one declaration of a file that imports fmt and os.
func parseDecl(t *testing.T, src string) (string, *token.File, ast.Decl) {
	t.Helper()
	file := "package main\n" + src
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", file, 0)
	if err != nil {
		t.Fatal(err)
	}
	return file, fset.File(f.Pos()), f.Decls[len(f.Decls)-1]
}

func TestInstrument(t *testing.T) {
	imports := map[string]string{"fmt": "fmt", "os": "os", "flag": "flag"}
	for _, tc := range []struct{ src, want string }{
		// a leaf function: no entry check (it stays inlinable)
		{"func add(a, b int) int { return a + b }", "func add(a, b int) int { return a + b }"},
		{"func f(n int) int { return f(n - 1) }", "func f(n int) int {gnnlabcheck.Check();  return f(n - 1) }"},
		{"func p() { fmt.Println(1) }", "func p() { fmt.Println(1) }"},
		{"func m(v T) int { return v.Len() }", "func m(v T) int {gnnlabcheck.Check();  return v.Len() }"},
		{"func s() { for { } }", "func s() { for {gnnlabcheck.Check();  } }"},
		{"func c(n int) (s int) { for i := 0; i < n; i++ { s += i }; return }", "func c(n int) (s int) { for i := 0; i < n; i++ {if i&4095 == 0 { gnnlabcheck.Check() };  s += i }; return }"},
		// a float counter is not a counted loop: the plain check
		{"func c(n float64) { for x := 0.0; x < n; x++ { } }", "func c(n float64) { for x := 0.0; x < n; x++ {gnnlabcheck.Check();  } }"},
		{"func r(xs []int) { for range xs { } }", "func r(xs []int) { for range xs {gnnlabcheck.Check();  } }"},
		// a counted leaf loop inside a loop: the outer back-edge checks
		{"func m(n int) { for j := 0; j < n; j++ { for k := 0; k < n; k++ { } } }", "func m(n int) { for j := 0; j < n; j++ {gnnlabcheck.Check();  for k := 0; k < n; k++ { } } }"},
		{"func e() { os.Exit(3) }", "func e() { gnnlabrt.Exit(3) }"},
		{"func a() []string { return os.Args }", "func a() []string { return gnnlabrt.Args }"},
		// flag.CommandLine's functions: the session's set of flags
		{"func fl() *int { flag.Parse(); return flag.Int(\"n\", 3, \"\") }", "func fl() *int { gnnlabrt.FlagParse(); return gnnlabrt.FlagInt(\"n\", 3, \"\") }"},
		{"func fs() error { return flag.Set(\"n\", \"2\") }", "func fs() error { return gnnlabrt.FlagSetValue(\"n\", \"2\") }"},
		{"func fn() *flag.FlagSet { return flag.NewFlagSet(\"x\", flag.ExitOnError) }", "func fn() *flag.FlagSet { return flag.NewFlagSet(\"x\", flag.ExitOnError) }"},
	} {
		file, tf, d := parseDecl(t, tc.src)
		from := tf.Offset(d.Pos())
		got := instrument(file[from:tf.Offset(d.End())], from, tf, d, imports, true)
		if got != tc.want {
			t.Errorf("instrument(%q) =\n%q, want\n%q", tc.src, got, tc.want)
		}
	}
}

func TestWrapper(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"func fib(n int) int { return 0 }", "func fib(n int) int { return \x00pkg\x00.Ffib(n) }"},
		{"func f(a, _ int, xs ...string) (n int, err error) { return }", "func f(a int, gnnlabarg1 int, xs ...string) (n int, err error) { return \x00pkg\x00.Ff(a, gnnlabarg1, xs...) }"},
		{"func g(int) {}", "func g(gnnlabarg0 int) { \x00pkg\x00.Fg(gnnlabarg0) }"},
		{"func (p P) M() {}", ""},
		{"func init() {}", ""},
		{"func Map[T any](x T) T { return x }", ""},
	} {
		file, tf, d := parseDecl(t, tc.src)
		if got := wrapper(file, 0, tf, d.(*ast.FuncDecl)); got != tc.want {
			t.Errorf("wrapper(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}

func TestFreeNames(t *testing.T) {
	_, _, d := parseDecl(t, "func f(p P) int { x := g(p.a); return x + K + len(fmt.Sprint(Q{a: 1})) }")
	got := strings.Join(freeNames(d), " ")
	// P, g, K, len, fmt, Q and the key a (a field name or a value: kept)
	if want := "P int g K len fmt Q a"; got != want {
		t.Errorf("freeNames = %q, want %q", got, want)
	}
}

// TestFlagFuncsExist: every function the rewrite of flag's functions
// calls is one package cellrt declares (cellrt's TestFlagSignatures
// checks their types).
func TestFlagFuncsExist(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "../../cellrt/flag.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
			declared[fd.Name.Name] = true
		}
	}
	for from, to := range FlagFuncs {
		if !declared[to] {
			t.Errorf("flag.%s is rewritten to cellrt.%s, which cellrt does not declare", from, to)
		}
	}
}

func TestIsConstraint(t *testing.T) {
	for src, want := range map[string]bool{
		"type N interface{ int | float64 }":                        true,
		"type S interface{ ~string }":                              true,
		"type Named interface {\n\tcomparable\n\tName() string\n}": true,
		"type Stringer interface{ String() string }":               false,
		"type RW interface {\n\tio.Reader\n\tio.Writer\n}":         false,
	} {
		_, _, d := parseDecl(t, src)
		ts := d.(*ast.GenDecl).Specs[0].(*ast.TypeSpec)
		if got := isConstraint(ts.Type); got != want {
			t.Errorf("isConstraint(%q) = %v, want %v", src, got, want)
		}
	}
}
