package rewrite

import (
	"go/ast"
	"go/types"
)

// func main in cells: the pass "main". main, once a cell defined it, is
// the renamed function (funcName): an explicit main() calls it.

// mainRefs is the pass "main", a pass of single nodes (Pass.Node): see
// mainRef.
func mainRefs(r *rewriter, n ast.Node) Visit {
	if id, ok := n.(*ast.Ident); ok {
		r.mainRef(id)
	}
	return Next
}

// mainRef rewrites a use of the cell's or the session's func main.
func (r *rewriter) mainRef(id *ast.Ident) {
	if id.Name != "main" {
		return
	}
	switch obj := r.info.Uses[id].(type) {
	case *types.Func:
		if obj.Parent() != obj.Pkg().Scope() {
			return
		}
	case nil:
		if !r.hasMain {
			return
		}
	default:
		return
	}
	r.ed.Replace(id.Pos(), id.End(), helperMain)
}

// callsMain reports whether a statement of the cell's top level calls
// main.
func callsMain(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "main" {
				found = true
			}
		}
		return !found
	})
	return found
}
