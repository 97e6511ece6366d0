package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Range over an integer (Go 1.22), which yaegi v0.16.1 panicked on
// ("nil type"): the pass "rangeint".

// rangeInts is the pass "rangeint".
func rangeInts(r *rewriter, n ast.Node) Visit {
	x, t := r.rangeOver(n)
	if t == nil {
		return Next
	}
	if u, ok := t.Underlying().(*types.Basic); ok && u.Info()&types.IsInteger != 0 {
		captured := false
		if x.Tok == token.DEFINE {
			captured, _ = r.captured(x.Body, r.loopVars([]ast.Expr{x.Key}))
		}
		r.rangeInt(x, t, captured)
	}
	return Next
}

// rangeInt turns `for k := range n {` into a three-clause loop, leaving
// the operand's text in place.
func (r *rewriter) rangeInt(x *ast.RangeStmt, t types.Type, captured bool) {
	tname := types.TypeString(types.Default(t), func(*types.Package) string { return "" })
	i, n := r.fresh("i"), r.fresh("n")
	tail := ""
	if key, ok := x.Key.(*ast.Ident); ok && x.Tok == token.DEFINE && key.Name != "_" {
		if captured {
			// A copy per iteration (rewrite_loopvar.go).
			tail = " " + key.Name + " := " + i + ";"
		} else {
			i = key.Name
		}
	} else if x.Key != nil && x.Tok == token.ASSIGN {
		// The loop variable exists already: assign it on each iteration.
		tail = " " + r.ed.Text(x.Key.Pos(), x.Key.End(), false) + " = " + i + ";"
	}
	r.ed.Replace(x.For, x.X.Pos(), "for "+i+", "+n+" := "+tname+"(0), "+tname+"(")
	r.ed.Replace(x.X.End(), x.Body.Lbrace+1, "); "+i+" < "+n+"; "+i+"++ {"+tail)
}
