package rewrite

import (
	"go/ast"
	"go/types"

	"github.com/gnnlab/gnnlab/interp/internal/rt"
)

// Calls of builtin functions that yaegi v0.16.1 lacks or gets wrong:
// min and max, complex of constants, clear, new of an expression and
// recover. Each is a pass of single nodes (Pass.Node).

// builtinCall returns n as a call of the builtin function name.
func (r *rewriter) builtinCall(n ast.Node, name string) (*ast.CallExpr, *ast.Ident, bool) {
	x, ok := n.(*ast.CallExpr)
	if !ok {
		return nil, nil, false
	}
	id, ok := x.Fun.(*ast.Ident)
	if !ok || !r.isBuiltin(id, name) {
		return nil, nil, false
	}
	return x, id, true
}

// minMax is the pass "minmax": a constant call is written as its value
// and done, with its arguments.
func minMax(r *rewriter, n ast.Node) Visit {
	x, id, ok := r.builtinCall(n, "min")
	if !ok {
		x, id, ok = r.builtinCall(n, "max")
	}
	if !ok {
		return Next
	}
	if text, ok := r.constantText(x); ok {
		// A constant (const c = min(1, 2)) stays one.
		r.ed.Replace(x.Pos(), x.End(), text)
		return Prune
	}
	helper := helperPrefix + id.Name
	if tv, ok := r.info.Types[x]; ok && tv.Type != nil {
		if b, ok := types.Default(tv.Type).(*types.Basic); ok && b.Kind() != types.Invalid {
			helper += "[" + b.Name() + "]"
		}
	}
	r.ed.Replace(id.Pos(), id.End(), helper)
	return Next
}

// complexConst is the pass "complexconst": complex(0, math.Pi) failed
// in yaegi (mismatched types untyped float and untyped float64), so a
// constant is written as its value, and done.
func complexConst(r *rewriter, n ast.Node) Visit {
	x, _, ok := r.builtinCall(n, "complex")
	if !ok {
		return Next
	}
	if text, ok := r.constantText(x); ok {
		r.ed.Replace(x.Pos(), x.End(), text)
		return Prune
	}
	return Next
}

// clears is the pass "clear".
func clears(r *rewriter, n ast.Node) Visit {
	if _, id, ok := r.builtinCall(n, "clear"); ok {
		r.ed.Replace(id.Pos(), id.End(), rt.Clear)
	}
	return Next
}

// newExprs is the pass "newexpr".
func newExprs(r *rewriter, n ast.Node) Visit {
	if x, id, ok := r.builtinCall(n, "new"); ok {
		r.newExpr(x, id)
	}
	return Next
}

// recovers is the pass "recover": yaegi's recover gives the panic value
// as a reflect.Value, so r.(string) and case string failed.
func recovers(r *rewriter, n ast.Node) Visit {
	x, _, ok := r.builtinCall(n, "recover")
	if !ok || len(x.Args) != 0 {
		return Next
	}
	call := rt.Recovered
	if slot, ok := r.recoverIn[x]; ok {
		call = slot + ".Recovered" // a guarded deferred literal (defer.go)
	}
	r.ed.Insert(x.Pos(), call+"(", false)
	r.ed.Insert(x.End(), ")", false)
	return Next
}
