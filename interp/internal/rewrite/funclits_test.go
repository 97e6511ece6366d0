package rewrite

import (
	"slices"
	"strings"
	"testing"
)

// TestFuncLits checks which function literals of a cell's statements are
// moved into declared functions: those that use package-level names and
// the cell's writable top-level definitions, not one that uses a loop
// variable, nor those of go and defer statements.
func TestFuncLits(t *testing.T) {
	c, info := testCell(t, "package main\n\nvar g = 2\n", `x := 1
k := func() int { return x + g }
for i := 0; i < 2; i++ {
	f := func() int { return i }
	_ = f
}
go func() {}()
defer func() {}()
println(k())
`)
	seq := 4
	out, err := Apply(c, info, Env{Names: map[string]string{}, Seq: &seq})
	if err != nil {
		t.Fatal(err)
	}
	decl, file, made := out.Stmt.FuncLits(c.Body)
	// Seq numbers the go statement's function first (__gnnlab_go5).
	if want := []string{"__gnnlab_defs6"}; !slices.Equal(made, want) {
		t.Errorf("FuncLits: made %q, want %q", made, want)
	}
	if want := "\nvar x int\n"; decl != want {
		t.Errorf("FuncLits: decl %q, want %q", decl, want)
	}
	for _, want := range []string{"func __gnnlab_defs6() func() int {", "return func() int { return x + g }"} {
		if !strings.Contains(file, want) {
			t.Errorf("FuncLits: file %q lacks %q", file, want)
		}
	}
	stmts := out.Stmt.Editor().Text(c.Body.Lbrace+1, c.Body.Rbrace, false)
	for _, want := range []string{"x = 1", "k := __gnnlab_defs6()", "f := func() int { return i }"} {
		if !strings.Contains(stmts, want) {
			t.Errorf("FuncLits: the statements lack %q:\n%s", want, stmts)
		}
	}
}
