package interp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"sync"
)

// atomic.Pointer[T] in cells.
//
// yaegi's tables have no generic types: the session declares
// atomic.Pointer for go/types (atomicDecl) and writes atomic.Pointer[T]
// as __gnnlab_atomic_Pointer[T], an interpreted generic type with the
// same methods, whose pointer a mutex guards (atomicSrc), compiled into a
// session when a cell first uses it.

const atomicDecl = `
type Pointer[T any] struct{ p *T }

func (x *Pointer[T]) Load() *T                         { return x.p }
func (x *Pointer[T]) Store(val *T)                     {}
func (x *Pointer[T]) Swap(new *T) (old *T)             { return nil }
func (x *Pointer[T]) CompareAndSwap(old, new *T) bool  { return false }
`

const atomicSrc = `package main

import __gnnlab_sync "sync"

type __gnnlab_atomic_Pointer[T any] struct {
	mu __gnnlab_sync.Mutex
	p  *T
}

func (x *__gnnlab_atomic_Pointer[T]) Load() *T {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.p
}

func (x *__gnnlab_atomic_Pointer[T]) Store(val *T) {
	x.mu.Lock()
	x.p = val
	x.mu.Unlock()
}

func (x *__gnnlab_atomic_Pointer[T]) Swap(new *T) *T {
	x.mu.Lock()
	old := x.p
	x.p = new
	x.mu.Unlock()
	return old
}

func (x *__gnnlab_atomic_Pointer[T]) CompareAndSwap(old, new *T) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.p != old {
		return false
	}
	x.p = new
	return true
}
`

// atomicTypes is package sync/atomic for go/types: the compiled package
// with Pointer added.
var atomicTypes = sync.OnceValue(func() *types.Package {
	p, err := symTypes.Import("sync/atomic")
	if err != nil {
		return nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "atomic.go", "package atomic\n"+atomicDecl, 0)
	if err != nil {
		return p
	}
	conf := types.Config{Error: func(error) {}}
	h, _ := conf.Check("sync/atomic", fset, []*ast.File{f}, nil)
	if h != nil && p.Scope().Lookup("Pointer") == nil {
		p.Scope().Insert(h.Scope().Lookup("Pointer"))
	}
	return p
})

// atomicType rewrites atomic.Pointer in atomic.Pointer[T] (x's X); it
// reports whether it did.
func (r *rewriter) atomicType(x ast.Expr) bool {
	sel, ok := x.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Pointer" {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return false
	}
	if pn, ok := r.info.Uses[pkg].(*types.PkgName); !ok || pn.Imported().Path() != "sync/atomic" {
		return false
	}
	r.ed.replace(sel.Pos(), sel.End(), helperPrefix+"atomic_Pointer")
	if r.generic == nil {
		r.generic = map[string]bool{}
	}
	r.generic["sync/atomic"] = true
	return true
}
