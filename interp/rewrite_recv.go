package interp

import (
	"go/ast"
	"go/token"
	"go/types"
)

// recvReturns rewrites return <-ch, whose value yaegi lost (reflect:
// Value.Set using unaddressable value), to return T(<-ch), a conversion to
// the element type, which it gets right.
func (r *rewriter) recvReturns(n ast.Node) {
	ast.Inspect(n, func(node ast.Node) bool {
		ret, ok := node.(*ast.ReturnStmt)
		if !ok {
			return true
		}
		for _, e := range ret.Results {
			u, ok := ast.Unparen(e).(*ast.UnaryExpr)
			if !ok || u.Op != token.ARROW {
				continue
			}
			xt := r.info.Types[u.X].Type
			if xt == nil {
				continue
			}
			ch, ok := xt.Underlying().(*types.Chan)
			if !ok {
				continue
			}
			t, ok := typeText(ch.Elem(), r.names)
			if !ok {
				continue
			}
			r.ed.insert(e.Pos(), "("+t+")(", false)
			r.ed.insert(e.End(), ")", false)
		}
		return true
	})
}
