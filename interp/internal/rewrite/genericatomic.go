package rewrite

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"sync"

	"github.com/gnnlab/gnnlab/interp/internal/helpers"
	"github.com/gnnlab/gnnlab/interp/internal/symtypes"
)

// atomic.Pointer[T] in cells.
//
// yaegi's tables have no generic types: the session declares
// atomic.Pointer for go/types (helpers.AtomicDecl) and writes atomic.Pointer[T]
// as __gnnlab_atomic_Pointer[T], an interpreted generic type with the
// same methods, whose pointer a mutex guards (atomicSrc), compiled into a
// session when a cell first uses it.

// atomicSrc is atomic.Pointer[T] in the interpreter
// (internal/helpers/std/atomic).
var atomicSrc = helpers.Atomic()

// atomicTypes is package sync/atomic for go/types: the compiled package
// with Pointer added.
var atomicTypes = sync.OnceValue(func() *types.Package {
	p, err := symtypes.Import("sync/atomic")
	if err != nil {
		return nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "atomic.go", helpers.AtomicDecl(), 0)
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

// atomicPointers is the pass "atomicpointer", a pass of single nodes
// (Pass.Node): see atomicType.
func atomicPointers(r *rewriter, n ast.Node) Visit {
	if x, ok := n.(*ast.IndexExpr); ok {
		r.atomicType(x.X)
	}
	return Next
}

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
	r.ed.Replace(sel.Pos(), sel.End(), helperPrefix+"atomic_Pointer")
	if r.generic == nil {
		r.generic = map[string]bool{}
	}
	r.generic["sync/atomic"] = true
	return true
}
