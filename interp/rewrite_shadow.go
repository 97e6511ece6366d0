package interp

import (
	"go/ast"
	"go/token"
	"strings"
)

// shadows rewrites the definitions x := x (a new variable initialised
// from the one it shadows) in the blocks of the cell's top-level
// statements, outside function literals: there yaegi reads the new, zero
// variable on the right. The value goes through a fresh variable:
//
//	c := c   becomes   __gnnlab_sh1 := c; c := __gnnlab_sh1
//
// Only definitions that are statements of a block or a clause are
// rewritten (not the init of if, for or switch).
func (r *rewriter) shadows(body *ast.BlockStmt) {
	ast.Inspect(body, func(x ast.Node) bool {
		var list []ast.Stmt
		switch x := x.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BlockStmt:
			list = x.List
		case *ast.CaseClause:
			list = x.Body
		case *ast.CommClause:
			list = x.Body
		}
		for _, st := range list {
			if as, ok := st.(*ast.AssignStmt); ok && as.Tok == token.DEFINE && x != body {
				r.shadow(as)
			}
		}
		return true
	})
}

func (r *rewriter) shadow(as *ast.AssignStmt) {
	if len(as.Lhs) != len(as.Rhs) {
		return
	}
	defined := map[string]bool{}
	for _, e := range as.Lhs {
		if id, ok := e.(*ast.Ident); ok && r.info.Defs[id] != nil {
			defined[id.Name] = true
		}
	}
	reads := false
	for _, e := range as.Rhs {
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && defined[id.Name] {
				reads = true
			}
			_, lit := n.(*ast.FuncLit)
			return !reads && !lit
		})
	}
	if !reads {
		return
	}
	tmps := make([]string, len(as.Lhs))
	for k := range tmps {
		tmps[k] = r.fresh("sh")
	}
	lhs := r.ed.text(as.Lhs[0].Pos(), as.Lhs[len(as.Lhs)-1].End(), false)
	r.ed.replace(as.Lhs[0].Pos(), as.TokPos+token.Pos(len(":=")), strings.Join(tmps, ", ")+" :=")
	r.ed.insert(as.End(), "; "+lhs+" := "+strings.Join(tmps, ", "), false)
}
