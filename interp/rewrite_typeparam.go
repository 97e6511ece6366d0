package interp

import (
	"go/ast"
	"go/types"
	"reflect"

	yaegi "github.com/traefik/yaegi/interp"
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

// typeParamSymbols are the compiled helpers of the rewrite, in the
// package of the other runtime helpers (helperRT).
var typeParamSymbols = yaegi.Exports{"gnnlabrt/gnnlabrt": {"ConvertTo": reflect.ValueOf(convertTo)}}

// convertTo sets *p to x converted to *p's type. A value of an
// interpreted type reaches it in yaegi's wrapper, which it takes off.
func convertTo(p, x any) {
	d := reflect.ValueOf(p).Elem()
	v := reflect.ValueOf(bareValue(x))
	if !v.IsValid() {
		d.SetZero()
		return
	}
	d.Set(v.Convert(d.Type()))
}

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
	r.ed.insert(call.Pos(), "func("+x+" any) ("+v+" ", false)
	r.ed.replace(call.Lparen, call.Lparen+1, ") { "+helperRT+".ConvertTo(&"+v+", "+x+"); return }(")
	if at, ok := r.info.Types[call.Args[0]]; ok && at.Value != nil {
		if b, ok := at.Type.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
			// yaegi's compiler panicked on an untyped constant passed
			// as an any in an instance (reflect: call of Interface on
			// zero Value): it gets its default type.
			r.ed.insert(call.Args[0].Pos(), types.Default(b).String()+"(", false)
			r.ed.insert(call.Args[0].End(), ")", false)
		}
	}
	return true
}
