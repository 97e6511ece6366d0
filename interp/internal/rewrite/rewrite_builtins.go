package rewrite

import (
	"go/ast"
	"go/constant"
	"go/types"
	"strconv"
	"strings"

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

// constantText returns the text of the constant value of e, converted
// to its type unless that is untyped, when go/types knows it and it can
// be written exactly.
func (r *rewriter) constantText(e ast.Expr) (string, bool) {
	tv, ok := r.info.Types[e]
	if !ok || tv.Value == nil {
		return "", false
	}
	var text string
	switch tv.Value.Kind() {
	case constant.Int:
		text = tv.Value.ExactString()
	case constant.String:
		text = strconv.Quote(constant.StringVal(tv.Value))
	case constant.Float:
		text = floatText(tv.Value)
	case constant.Complex:
		text = "complex(" + floatText(constant.Real(tv.Value)) + ", " + floatText(constant.Imag(tv.Value)) + ")"
	default:
		return "", false
	}
	if b, ok := tv.Type.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		return "(" + text + ")", true
	}
	t, ok := typeText(tv.Type, r.names)
	if !ok {
		return "", false
	}
	return t + "(" + text + ")", true
}

// floatText writes the exact value of a numeric constant as an untyped
// float constant: a fraction (5/2) as 5.0/2.
func floatText(v constant.Value) string {
	num, den, frac := strings.Cut(constant.ToFloat(v).ExactString(), "/")
	if frac {
		return "(" + num + ".0/" + den + ")"
	}
	return num + ".0"
}

// newExpr rewrites new(expr), whose operand is a value, into a function
// literal that returns the address of a copy (a generic helper when the
// type cannot be written: yaegi fails to instantiate a generic function
// for a statement at the top level of a cell).
func (r *rewriter) newExpr(call *ast.CallExpr, id *ast.Ident) {
	if len(call.Args) != 1 {
		return
	}
	arg := call.Args[0]
	tv, ok := r.info.Types[arg]
	if !ok || !tv.IsValue() || tv.Type == nil {
		return
	}
	t, ok := typeText(types.Default(tv.Type), r.names)
	if !ok {
		r.ed.Replace(id.Pos(), id.End(), helperNew)
		return
	}
	v := r.fresh("nv")
	r.ed.Replace(call.Pos(), arg.Pos(), "func() *"+t+" { var "+v+" "+t+" = ")
	r.ed.Replace(arg.End(), call.End(), "; return &"+v+" }()")
}
