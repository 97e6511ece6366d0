package typecheck

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// cell parses a cell as the session splits it: decls, a file of imports
// and declarations, and stmts, the body of a function.
func cell(t *testing.T, decls, stmts string) (*token.FileSet, *ast.File, *ast.BlockStmt) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "decls.go", "package main\n"+decls, 0)
	if err != nil {
		t.Fatal(err)
	}
	g, err := parser.ParseFile(fset, "stmts.go", "package main\nfunc main() {\n"+stmts+"\n}\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	return fset, f, g.Decls[0].(*ast.FuncDecl).Body
}

func undefinedNames(undef []types.Error) []string {
	var names []string
	for _, e := range undef {
		names = append(names, strings.TrimPrefix(e.Msg, "undefined: "))
	}
	slices.Sort(names)
	return names
}

func TestCellUndefined(t *testing.T) {
	fset, decls, body := cell(t, "func f() int { return g() }", "x := h\n_ = x\n_ = y")
	_, undef := Cell(fset, decls, body, Env{Known: func(name string) bool { return name == "h" }})
	if got, want := undefinedNames(undef), []string{"g", "y"}; !slices.Equal(got, want) {
		t.Errorf("Cell: undefined %q, want %q", got, want)
	}
}

// TestCellEarlier checks that the declarations of earlier cells tell the
// checker the session's named types, and that a dead record does not.
func TestCellEarlier(t *testing.T) {
	recs := []Record{
		{Names: []string{"ID"}, Tok: token.TYPE, Text: "type ID int"},
		{Names: []string{"two"}, Tok: token.FUNC, Sig: "func two() (ID, error)", Text: "func two() (ID, error) { return 2, nil }"},
		{Names: []string{"gone"}, Tok: token.FUNC, Dead: true, Sig: "func gone()", Text: "func gone() {}"},
	}
	env := Env{Earlier: slices.Values(recs)}
	fset, decls, body := cell(t, "", "a, _ := two()\n_ = a\ngone()")
	info, undef := Cell(fset, decls, body, env)
	if got, want := undefinedNames(undef), []string{"gone"}; !slices.Equal(got, want) {
		t.Errorf("Cell: undefined %q, want %q", got, want)
	}
	var a *ast.Ident
	ast.Inspect(body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == "a" && a == nil {
			a = id
		}
		return true
	})
	if obj := info.Defs[a]; obj == nil || obj.Type().String() != "main.ID" {
		t.Errorf("Cell: a has %v, want a variable of type main.ID", obj)
	}
}

func TestNonFunctionCall(t *testing.T) {
	tests := []struct{ stmts, want string }{
		{"x := 3\nx()", "invalid operation: cannot call x (variable of type int): int is not a function"},
		{"0()", "invalid operation: cannot call 0 (untyped int constant): untyped int is not a function"},
		{"f := func() {}\nf()", ""},
		{"f := func() {}\nf()()", "f() (no value) used as value or type"},
		{"f := func() (int, int) { return 1, 2 }\nf()()", "multiple-value f() (value of type (int, int)) in single-value context"},
		{"_ = int(3)", ""},
	}
	for _, tt := range tests {
		fset, decls, body := cell(t, "", tt.stmts)
		info, _ := Cell(fset, decls, body, Env{})
		pos, msg := NonFunctionCall(info, decls, body)
		if msg != tt.want {
			t.Errorf("NonFunctionCall(%q) = %q, want %q", tt.stmts, msg, tt.want)
		}
		if line := 3 + strings.Count(tt.stmts, "\n"); msg != "" && fset.Position(pos).Line != line {
			t.Errorf("NonFunctionCall(%q) at %v, want line %d", tt.stmts, fset.Position(pos), line)
		}
	}
}

func TestUnexportedUse(t *testing.T) {
	tests := []struct{ stmts, want string }{
		{"var b strings.Builder\n_ = b.buf", "b.buf undefined (cannot refer to unexported field buf of strings.Builder)"},
		{"var b strings.Builder\n_ = b.Len()", ""},
	}
	for _, tt := range tests {
		fset, decls, body := cell(t, `import "strings"`, tt.stmts)
		info, _ := Cell(fset, decls, body, Env{})
		if _, msg := UnexportedUse(info, decls, body); msg != tt.want {
			t.Errorf("UnexportedUse(%q) = %q, want %q", tt.stmts, msg, tt.want)
		}
	}
	if pos, msg := UnexportedUse(nil); pos != token.NoPos || msg != "" {
		t.Errorf("UnexportedUse(nil) = %v, %q, want none", pos, msg)
	}
}

// TestCellErrors checks what Env.Errors is told: Go's other errors in the
// cell, not a soft one, an unused value or an undefined name.
func TestCellErrors(t *testing.T) {
	tests := []struct {
		stmts string
		want  []string
	}{
		{"x := 1\nx", nil},
		{"y := 2\n_ = nope", nil},
		{"_ = min()", []string{"invalid operation: not enough arguments for min() (expected 1, found 0)"}},
		{"c := make(chan int)\nc <- \"a\"", []string{`cannot use "a" (untyped string constant) as int value in send`}},
		// Soft errors of go/types that Go refuses are told, an unused
		// label's too; unused variables are not.
		{"goto L\nx := 1\n_ = x\nL:", []string{"goto L jumps over variable declaration at line 4"}},
		{"z := 1", nil},
		{"M:\n_ = 2", []string{"label M declared and not used"}},
	}
	for _, tt := range tests {
		fset, decls, body := cell(t, "", tt.stmts)
		var got []string
		Cell(fset, decls, body, Env{Errors: func(e types.Error) { got = append(got, e.Msg) }})
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("Cell(%q) told Errors %q, want %q", tt.stmts, got, tt.want)
		}
	}
}

func TestTooLarge(t *testing.T) {
	tests := []struct{ stmts, want string }{
		{"var x [1 << 62]byte\n_ = x", "type [4611686018427387904]byte larger than address space"},
		{"x := [1 << 30][1 << 30]int{}\n_ = x", "type [1073741824][1073741824]int larger than address space"},
		{"var x [1 << 30]byte\n_ = x", ""},
		{"var x [3]struct{ a [1 << 20]int }\n_ = x", ""},
	}
	for _, tt := range tests {
		fset, decls, body := cell(t, "", tt.stmts)
		info, _ := Cell(fset, decls, body, Env{})
		if _, msg := TooLarge(info, decls, body); msg != tt.want {
			t.Errorf("TooLarge(%q) = %q, want %q", tt.stmts, msg, tt.want)
		}
	}
}

// TestRefused checks which of go/types' errors the session refuses a
// cell with before it runs: those that no global of the session (whose
// type go/types has from reflect), no variable defined from one and no
// name go/types lacks takes part in, in the compiler's words and places.
func TestRefused(t *testing.T) {
	g := 7
	globals := map[string]reflect.Value{"g": reflect.ValueOf(&g).Elem()}
	tests := []struct {
		decls, stmts string
		want         []string // "line:col: message", lines of the statements
	}{
		{"", "a, b := 1, 2, 3\n_, _ = a, b", []string{"1:9: assignment mismatch: 2 variables but 3 values"}},
		{"", "clear(0)", []string{"1:7: invalid argument: cannot clear 0 (untyped int constant): argument must be (or constrained by) map or slice"}},
		{"", "break", []string{"1:1: break is not in a loop, switch, or select"}},
		{"", "switch { case true: continue }", []string{"1:21: continue is not in a loop"}},
		{"", "for { break L }", []string{"1:13: break label not defined: L"}},
		{"", "goto L", []string{"1:6: label L not defined"}},
		{"", "goto L\nx := 1\n_ = x\nL:", []string{"1:6: goto L jumps over declaration of x at stmts.go:4:3"}},
		{"", "ch := make(<-chan int)\nch <- 1", []string{"2:1: invalid operation: cannot send to receive-only channel <-chan int ch (variable of type <-chan int)"}},
		{"", "x := 1\nx = \"a\"\nbreak", []string{`2:5: cannot use "a" (untyped string constant) as int value in assignment`, "3:1: break is not in a loop, switch, or select"}},
		// A global takes part: its type may be wrong (a named type of the
		// session is its underlying type here).
		{"", "var s string = g\n_ = s", nil},
		{"", "y := g\nvar s string = y\n_ = s", nil},
		{"", "y := g\n_ = y\nbreak", []string{"3:1: break is not in a loop, switch, or select"}},
		// A name go/types does not know (the session may: a variable that
		// a statement of the cell defines, used in its function).
		{"func f() int { var s string = nope; _ = s; return 1 }", "", nil},
		// An unexported method that reflect does not list.
		{`import "go/ast"`, "var e ast.Expr = &ast.Ident{}\n_ = e", nil},
		// A body's statements are not the statement's: the error in the
		// range clause counts, though its body names j (undefined).
		{"", "for i, j := range 3 {\n_, _ = i, j\n}", []string{"1:8: range over 3 (untyped int constant) permits only one iteration variable"}},
	}
	for _, tt := range tests {
		fset, decls, body := cell(t, tt.decls, tt.stmts)
		var errs []types.Error
		info, _ := Cell(fset, decls, body, Env{Globals: globals, Errors: func(e types.Error) { errs = append(errs, e) }})
		var got []string
		for _, e := range Refused(info, errs, false, decls, body) {
			p := e.Fset.Position(e.Pos)
			got = append(got, fmt.Sprintf("%d:%d: %s", p.Line-2, p.Column, e.Msg))
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("Refused(%q, %q) = %q, want %q (go/types: %v)", tt.decls, tt.stmts, got, tt.want, errs)
		}
	}
}

// TestRefusedExact checks that a global takes part in a refused error
// when its reflect type is its Go type (GlobalsExact), except yaegi's
// constants.
func TestRefusedExact(t *testing.T) {
	g := 7
	c := constant.MakeInt64(1)
	globals := map[string]reflect.Value{"g": reflect.ValueOf(&g).Elem(), "c": reflect.ValueOf(&c).Elem()}
	tests := []struct {
		stmts string
		want  []string
	}{
		{"g = \"a\"", []string{`1:5: cannot use "a" (untyped string constant) as int value in assignment`}},
		{"y := g\nvar s string = y\n_ = s", []string{"2:16: cannot use y (variable of type int) as string value in variable declaration"}},
		{"_ = c + 1", nil},
	}
	for _, tt := range tests {
		fset, decls, body := cell(t, "", tt.stmts)
		var errs []types.Error
		info, _ := Cell(fset, decls, body, Env{Globals: globals, Errors: func(e types.Error) { errs = append(errs, e) }})
		var got []string
		for _, e := range Refused(info, errs, true, decls, body) {
			p := e.Fset.Position(e.Pos)
			got = append(got, fmt.Sprintf("%d:%d: %s", p.Line-2, p.Column, e.Msg))
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("Refused(%q, exact) = %q, want %q (go/types: %v)", tt.stmts, got, tt.want, errs)
		}
	}
}

func TestGlobalsExact(t *testing.T) {
	tests := []struct {
		recs    []Record
		imports []Import
		want    bool
	}{
		{nil, nil, true},
		{[]Record{{Names: []string{"pt"}, Tok: token.TYPE, Text: "type pt struct{ x, y int }"}}, []Import{{"fmt", "fmt"}}, true},
		{[]Record{{Names: []string{"ints"}, Tok: token.TYPE, Text: "type ints = []int"}}, nil, true},
		{[]Record{{Names: []string{"Suit"}, Tok: token.TYPE, Text: "type Suit int"}}, nil, false},
		{[]Record{{Names: []string{"Suit"}, Tok: token.TYPE, Text: "type Suit int", Dead: true}}, nil, true},
		{[]Record{{Names: []string{"Shape"}, Tok: token.TYPE, Text: "type Shape interface{ Area() float64 }"}}, nil, false},
		{nil, []Import{{"mod", "example.com/mod"}}, false},
	}
	for _, tt := range tests {
		if got := GlobalsExact(Env{Earlier: slices.Values(tt.recs), Imports: tt.imports}); got != tt.want {
			t.Errorf("GlobalsExact(%v, %v) = %v, want %v", tt.recs, tt.imports, got, tt.want)
		}
	}
}
