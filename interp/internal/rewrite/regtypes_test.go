package rewrite

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestStructTypesEmbedded checks the field names that StructTypes
// registers for embedded fields: the type's name, with or without a
// package, a pointer or type arguments (atomic.Pointer[int] is Pointer).
func TestStructTypesEmbedded(t *testing.T) {
	const src = `package main

import "sync/atomic"

type Box[T any] struct{ V T }
type Pair[K comparable, V any] struct{}

type S struct {
	atomic.Int64
	atomic.Pointer[int]
	*Box[string]
	Pair[int, string]
	N int
}
`
	f, err := parser.ParseFile(token.NewFileSet(), "decls.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := StructTypes(f.Decls)
	if want := `"main.S", "Int64,Pointer,Box,Pair,N"`; !strings.Contains(got, want) {
		t.Errorf("StructTypes = %q, want it to register %s", got, want)
	}
}
