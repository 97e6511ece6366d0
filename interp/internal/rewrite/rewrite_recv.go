package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
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
			r.ed.Insert(e.Pos(), "("+t+")(", false)
			r.ed.Insert(e.End(), ")", false)
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
			if (!ok || tv.Type == nil || tv.Type == types.Typ[types.Invalid]) && (id.Name == "len" || id.Name == "cap") {
				// Of a variable that the cell declares after the
				// function (go/types did not know it yet): len and cap
				// are ints all the same.
				tv, ok = types.TypeAndValue{Type: types.Typ[types.Int]}, true
			}
			if !ok || tv.Type == nil || tv.Value != nil {
				continue // a constant (len of an array) needs nothing
			}
			t, ok := typeText(tv.Type, r.names)
			if !ok {
				continue
			}
			r.ed.Insert(e.Pos(), "("+t+")(", false)
			r.ed.Insert(e.End(), ")", false)
		}
		return true
	})
}

// tupleAssigns rewrites a tuple assignment to names whose right side has a
// call (a, b, c = x.F(1), x.F(2), s[:3]) to an assignment from one call of
// a function literal returning the values (a, b, c = func() (T, T, []int)
// { return x.F(1), x.F(2), s[:3] }()): yaegi lost the values after a
// method call in the tuple form (c was left empty), and gets the
// single-call form right. The right side is still evaluated before any
// name is assigned, as Go does. It runs before the other rewrites, so
// that their insertions at the statement's end land inside the literal.
func (r *rewriter) tupleAssigns(n ast.Node) {
	ast.Inspect(n, func(node ast.Node) bool {
		as, ok := node.(*ast.AssignStmt)
		if !ok || as.Tok != token.ASSIGN || len(as.Lhs) < 2 || len(as.Lhs) != len(as.Rhs) {
			return true
		}
		hasCall := false
		for _, e := range as.Rhs {
			ast.Inspect(e, func(m ast.Node) bool {
				if _, ok := m.(*ast.CallExpr); ok {
					hasCall = true
				}
				_, lit := m.(*ast.FuncLit)
				return !hasCall && !lit
			})
		}
		if !hasCall {
			return true
		}
		results := make([]string, len(as.Lhs))
		for i, e := range as.Lhs {
			id, ok := e.(*ast.Ident)
			if !ok {
				return true
			}
			var t types.Type
			if obj := r.info.ObjectOf(id); obj != nil && id.Name != "_" {
				t = obj.Type()
			} else if tv, ok := r.info.Types[as.Rhs[i]]; ok {
				t = types.Default(tv.Type)
			}
			if t == nil {
				return true
			}
			s, ok := typeText(t, r.names)
			if !ok {
				return true
			}
			results[i] = s
		}
		r.ed.Replace(as.TokPos, as.Rhs[0].Pos(), "= func() ("+strings.Join(results, ", ")+") { return ")
		r.ed.Insert(as.End(), " }()", false)
		return true
	})
}
