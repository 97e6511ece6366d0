package declname

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"testing"
)

func TestOf(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{"func f() {}", []string{"f"}},
		{"func (t T) M() {}", []string{"T.M"}},
		{"func (t *T) M() {}", []string{"T.M"}},
		{"func (t *(T)) M() {}", []string{"T.M"}},
		{"func (p Pair[K, V]) M() {}", []string{"Pair.M"}},
		{"func (p *Box[T]) M() {}", []string{"Box.M"}},
		{"func (struct{}) M() {}", []string{".M"}},
		{"var a, b = 1, 2", []string{"a", "b"}},
		{"var (\n\tx int\n\ty, z string\n)", []string{"x", "y", "z"}},
		{"const c = 3", []string{"c"}},
		{"type (\n\tA int\n\tB[T any] []T\n)", []string{"A", "B"}},
		{`import "fmt"`, nil},
	}
	for _, tt := range tests {
		f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+tt.src, 0)
		if err != nil {
			t.Fatalf("parse %q: %v", tt.src, err)
		}
		if got := Of(f.Decls[0]); !slices.Equal(got, tt.want) {
			t.Errorf("Of(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}

func TestRecv(t *testing.T) {
	tests := []struct {
		src, want string
	}{
		{"T", "T"},
		{"*T", "T"},
		{"(*T)", "T"},
		{"T[int]", "T"},
		{"*T[int, string]", "T"},
		{"pkg.T", ""},
		{"[]T", ""},
		{"struct{}", ""},
	}
	for _, tt := range tests {
		e, err := parser.ParseExpr(tt.src)
		if err != nil {
			t.Fatalf("parse %q: %v", tt.src, err)
		}
		if got := Recv(e); got != tt.want {
			t.Errorf("Recv(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
	if got := Recv(ast.NewIdent("x")); got != "x" {
		t.Errorf("Recv(x) = %q, want x", got)
	}
}

func TestImport(t *testing.T) {
	tests := []struct{ src, want string }{
		{`import "fmt"`, "fmt"},
		{`import "math/rand/v2"`, "rand"},
		{`import "gonum.org/v1/plot"`, "plot"},
		{`import r "math/rand"`, "r"},
		{`import . "strings"`, "."},
		{`import _ "embed"`, "_"},
	}
	for _, tt := range tests {
		f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+tt.src, 0)
		if err != nil {
			t.Fatalf("parse %q: %v", tt.src, err)
		}
		if got := Import(f.Imports[0]); got != tt.want {
			t.Errorf("Import(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}
