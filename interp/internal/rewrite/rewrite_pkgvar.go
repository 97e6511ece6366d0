package rewrite

import (
	"go/ast"
	"go/types"
)

// packageVars is the pass "packagevars", a pass of single nodes
// (Pass.Node): see packageVar.
func packageVars(r *rewriter, n ast.Node) Visit {
	if sel, ok := n.(*ast.SelectorExpr); ok {
		r.packageVar(sel)
	}
	return Next
}

// packageVar rewrites a use of pkg.V, a variable of a compiled package, to
// (*(&pkg.V)): yaegi takes a compiled variable of a basic kind
// (cuda.MatMulKernel, a string) for a constant, so it refuses to assign to
// it and compares its value at compile time, but reads and writes it
// through its address. Variables of other kinds are left as they are.
func (r *rewriter) packageVar(sel *ast.SelectorExpr) {
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return
	}
	if _, ok := r.info.Uses[pkg].(*types.PkgName); !ok {
		return
	}
	v, ok := r.info.Uses[sel.Sel].(*types.Var)
	if !ok || v.Pkg() == nil || v.Parent() != v.Pkg().Scope() {
		return
	}
	// Only the basic kinds are mistaken for constants.
	if _, basic := v.Type().Underlying().(*types.Basic); !basic {
		return
	}
	r.ed.Insert(sel.Pos(), "(*(&", false)
	r.ed.Insert(sel.End(), "))", false)
}
