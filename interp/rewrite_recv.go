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

// builtinReturns rewrites a builtin call among several results of a
// return statement (return 1 + f(x), len(x)) or several values of an
// assignment (a, b = 1 + f(x), cap(x)) to a conversion of it to its type
// (int(len(x))): yaegi wrote such a call's value over another value of the
// same statement (return 1 + f(x), len(x) returned 1, 1), which a
// conversion, with a value slot of its own, avoids.
func (r *rewriter) builtinReturns(n ast.Node) {
	ast.Inspect(n, func(node ast.Node) bool {
		var values []ast.Expr
		switch s := node.(type) {
		case *ast.ReturnStmt:
			values = s.Results
		case *ast.AssignStmt:
			values = s.Rhs
		case *ast.ValueSpec:
			values = s.Values
		}
		if len(values) < 2 {
			return true
		}
		for _, e := range values {
			call, ok := ast.Unparen(e).(*ast.CallExpr)
			if !ok {
				continue
			}
			id, ok := ast.Unparen(call.Fun).(*ast.Ident)
			if !ok {
				continue
			}
			if _, builtin := r.info.Uses[id].(*types.Builtin); !builtin {
				continue
			}
			tv, ok := r.info.Types[e]
			if !ok || tv.Type == nil || tv.Value != nil {
				continue // a constant (len of an array) needs nothing
			}
			t, ok := typeText(tv.Type, r.names)
			if !ok {
				continue
			}
			r.ed.insert(e.Pos(), "("+t+")(", false)
			r.ed.insert(e.End(), ")", false)
		}
		return true
	})
}
