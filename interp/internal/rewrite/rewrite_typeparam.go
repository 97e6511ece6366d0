package rewrite

import (
	"go/ast"
	"go/types"
	"strings"

	"github.com/gnnlab/gnnlab/interp/internal/rt"
)

// Conversions to a type parameter.
//
// yaegi writes the type argument of an instance as its type's name with
// the package (main.Name) and looks that name up when it compiles a
// conversion S(x) in the instance: it found no such type, and its
// compiler panicked (CFG post-order, nil pointer dereference) for every
// type argument declared in a cell (Upper(Name("bob")) with
// func Upper[S ~string](s S) S { return S(...) }). Builtin types such
// as string worked.
//
// A conversion to a type parameter becomes a call of a function literal
// whose result, of the type parameter, a compiled helper sets by
// reflection (reflect.Value.Convert, the conversion Go does):
//
//	func(__gnnlab_cx any) (__gnnlab_cv S) { __gnnlab_rt.ConvertTo(&__gnnlab_cv, __gnnlab_cx); return }(x)

// typeParamConversion rewrites call when it is a conversion to a type
// parameter, and reports whether it did.
func (r *rewriter) typeParamConversion(call *ast.CallExpr) bool {
	if len(call.Args) != 1 || call.Ellipsis.IsValid() {
		return false
	}
	tv, ok := r.info.Types[call.Fun]
	if !ok || !tv.IsType() {
		return false
	}
	if _, ok := types.Unalias(tv.Type).(*types.TypeParam); !ok {
		return false
	}
	const v, x = helperPrefix + "cv", helperPrefix + "cx"
	r.ed.Insert(call.Pos(), "func("+x+" any) ("+v+" ", false)
	r.ed.Replace(call.Lparen, call.Lparen+1, ") { "+rt.ConvertTo+"(&"+v+", "+x+"); return }(")
	if at, ok := r.info.Types[call.Args[0]]; ok && at.Value != nil {
		if b, ok := at.Type.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
			// yaegi's compiler panicked on an untyped constant passed
			// as an any in an instance (reflect: call of Interface on
			// zero Value): it gets its default type.
			r.ed.Insert(call.Args[0].Pos(), types.Default(b).String()+"(", false)
			r.ed.Insert(call.Args[0].End(), ")", false)
		}
	}
	return true
}

// inferable reports whether the call, in a generic function, of the
// generic function that id names, with the type arguments of inst, is
// better left to yaegi's inference: a type argument is a type parameter
// of the caller (written out, Id[T](x) in Id2[T] failed with a nil
// pointer dereference for a type argument of the session), and yaegi
// infers each of the callee's type parameters from an argument whose
// parameter has exactly that type, an argument of a type (not an untyped
// constant), the callee not variadic: Id(x) was right where Id[T](x)
// failed. Inference from a *node[T] or from a variadic parameter went
// wrong in yaegi, so those calls keep their type arguments.
func (r *rewriter) inferable(call *ast.CallExpr, id *ast.Ident, inst types.Instance) bool {
	usesParam := false
	for t := range inst.TypeArgs.Types() {
		if _, ok := types.Unalias(t).(*types.TypeParam); ok {
			usesParam = true
		}
	}
	if !usesParam || call.Ellipsis.IsValid() {
		return false
	}
	fn, ok := r.info.Uses[id].(*types.Func)
	if !ok {
		return false
	}
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.TypeParams() == nil || sig.Variadic() || sig.Params().Len() != len(call.Args) {
		return false
	}
	for tp := range sig.TypeParams().TypeParams() {
		found := false
		for k := range sig.Params().Len() {
			if sig.Params().At(k).Type() != tp {
				continue
			}
			if at, ok := r.info.Types[call.Args[k]]; ok && at.Type != nil {
				if b, ok := at.Type.(*types.Basic); !ok || b.Info()&types.IsUntyped == 0 {
					found = true
				}
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// severalResults puts a call of an instance with several results (a, b :=
// Swap[int, string](1, "x")) inside a function literal returning them, as
// genericCallee does for the standard library's: yaegi failed to compile
// it at the top level of a cell ("not a generic type"). A call in a
// generic function (type arguments with type parameters) stays as it is.
func (r *rewriter) severalResults(call *ast.CallExpr, inst types.Instance) {
	sig, ok := inst.Type.(*types.Signature)
	if !ok || sig.Results().Len() < 2 {
		return
	}
	for t := range inst.TypeArgs.Types() {
		if hasTypeParam(t) {
			return
		}
	}
	res := make([]string, sig.Results().Len())
	for k := range res {
		rt := sig.Results().At(k).Type()
		if hasTypeParam(rt) {
			return
		}
		var ok bool
		if res[k], ok = typeText(rt, r.names); !ok {
			return
		}
	}
	r.ed.Insert(call.Pos(), "func() ("+strings.Join(res, ", ")+") { return ", false)
	r.ed.Insert(call.End(), " }()", false)
}

// typeParamConversions is the pass "typeparamconv": a conversion it
// rewrites is done (its arguments are visited).
func typeParamConversions(r *rewriter, n ast.Node) Visit {
	if x, ok := n.(*ast.CallExpr); ok && r.typeParamConversion(x) {
		return Done
	}
	return Next
}
