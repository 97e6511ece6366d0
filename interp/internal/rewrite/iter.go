package rewrite

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"strconv"
	"strings"
	"sync"

	"github.com/gnnlab/gnnlab/interp/internal/helpers"
)

// Package iter in cells.
//
// yaegi has no package iter. Its types Seq and Seq2 are function types,
// which range over a function (rewrite_rangefunc.go) handles, so the
// session gives go/types a package iter declaring them, does not pass
// import "iter" to yaegi, and writes iter.Seq[V] as func(func(V) bool)
// and iter.Seq2[K, V] as func(func(K, V) bool). iter.Pull and iter.Pull2
// are written out at their calls (genericmacro.go).

var (
	iterOnce sync.Once
	iterPkg  *types.Package
)

// iterTypes is the package iter as go/types sees it in cells.
func iterTypes() *types.Package {
	iterOnce.Do(func() {
		fset := token.NewFileSet()
		// Its types (internal/helpers/std/iter) and Pull and Pull2.
		src := helpers.Iter() + "\n" + macroDecls()["iter"]
		f, err := parser.ParseFile(fset, "iter.go", src, 0)
		if err != nil {
			return
		}
		conf := types.Config{}
		iterPkg, _ = conf.Check("iter", fset, []*ast.File{f}, nil)
	})
	return iterPkg
}

// isIterImport reports whether an import spec imports package iter.
func isIterImport(is *ast.ImportSpec) bool {
	p, _ := strconv.Unquote(is.Path.Value)
	return p == "iter"
}

// iterType rewrites iter.Seq[V] and iter.Seq2[K, V] (x is the index
// expression) into function types; an error for another name of iter.
func (r *rewriter) iterType(x ast.Expr, fun ast.Expr, indices []ast.Expr) bool {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return false
	}
	pn, ok := r.info.Uses[pkg].(*types.PkgName)
	if !ok || pn.Imported().Path() != "iter" {
		return false
	}
	if (sel.Sel.Name != "Seq" || len(indices) != 1) && (sel.Sel.Name != "Seq2" || len(indices) != 2) {
		return false
	}
	args := make([]string, len(indices))
	for k, e := range indices {
		args[k] = r.ed.Text(e.Pos(), e.End(), false)
	}
	r.ed.Replace(x.Pos(), x.End(), "func(func("+strings.Join(args, ", ")+") bool)")
	return true
}

// iterSelector reports a use of a name of package iter other than Seq
// and Seq2.
func (r *rewriter) iterSelector(sel *ast.SelectorExpr) *unsupportedError {
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return nil
	}
	pn, ok := r.info.Uses[pkg].(*types.PkgName)
	if !ok || pn.Imported().Path() != "iter" || sel.Sel.Name == "Seq" || sel.Sel.Name == "Seq2" || macroBodies()["iter."+sel.Sel.Name] != "" {
		return nil
	}
	return &unsupportedError{sel.Pos(), "iter." + sel.Sel.Name + " is not supported by the interpreter (iter.Seq and iter.Seq2 are)"}
}

// iterPass is the pass "iter": an instance of iter.Seq or Seq2 that it
// writes out is done, with its children.
func iterPass(r *rewriter, n ast.Node) Visit {
	switch x := n.(type) {
	case *ast.SelectorExpr:
		if e := r.iterSelector(x); e != nil {
			r.fail(e)
		}
	case *ast.IndexExpr:
		if r.iterType(x, x.X, []ast.Expr{x.Index}) {
			return Prune
		}
	case *ast.IndexListExpr:
		if r.iterType(x, x.X, x.Indices) {
			return Prune
		}
	}
	return Next
}
