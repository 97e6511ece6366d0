package rewrite

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"testing"
)

// TestEarlyMethods checks which generic types of a cell keep their
// methods with them (early), and which declarations then come last.
func TestEarlyMethods(t *testing.T) {
	const src = `package main

type Box[T any] struct{ v T }

func (b *Box[T]) Get() T { return b.v }

func (b *Box[T]) Limit() int { return limit }

const limit = 3

type Holder struct{ b Box[int] }

type Later = Holder

type Set[T comparable] map[T]bool

func (s Set[T]) Add(v T) { s[v] = true; count++ }

var count int

type Go[T any] struct{}

func (Go[T]) Run() { go func() {}() }

type Plain struct{}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "decls.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	if _, err := (&types.Config{}).Check("main", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	early, moved, late := EarlyMethods(fset, f, info)
	typeName := func(gd *ast.GenDecl) string { return gd.Specs[0].(*ast.TypeSpec).Name.Name }
	var gotEarly []string
	for gd, ms := range early {
		for _, m := range ms {
			if !moved[m] {
				t.Errorf("method %s of early %s is not in moved", m.Name.Name, typeName(gd))
			}
			gotEarly = append(gotEarly, typeName(gd)+"."+m.Name.Name)
		}
	}
	slices.Sort(gotEarly)
	// Box's methods use only a constant of the cell; Set's a variable,
	// Go's start a goroutine.
	if want := []string{"Box.Get", "Box.Limit"}; !slices.Equal(gotEarly, want) {
		t.Errorf("EarlyMethods: early %q, want %q", gotEarly, want)
	}
	if len(moved) != 2 {
		t.Errorf("EarlyMethods: %d moved, want 2", len(moved))
	}
	var gotLate []string
	for gd := range late {
		gotLate = append(gotLate, typeName(gd))
	}
	slices.Sort(gotLate)
	// Holder names Box[int]; Later names Holder.
	if want := []string{"Holder", "Later"}; !slices.Equal(gotLate, want) {
		t.Errorf("EarlyMethods: late %q, want %q", gotLate, want)
	}

	f2, err := parser.ParseFile(fset, "plain.go", "package main\ntype P struct{}\nfunc (P) M() {}\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	info2 := &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	if _, err := (&types.Config{}).Check("main", fset, []*ast.File{f2}, info2); err != nil {
		t.Fatal(err)
	}
	if e, m, l := EarlyMethods(fset, f2, info2); e != nil || m != nil || l != nil {
		t.Errorf("EarlyMethods of a cell without generic types = %v, %v, %v, want nils", e, m, l)
	}
}
