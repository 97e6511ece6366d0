package rewrite

import (
	"go/ast"
	"go/types"
	"strings"
)

// Method values and method expressions: the pass "methodvalues".

// methodValues is the pass "methodvalues": it rewrites the selectors of
// methods that are not called at once, which it tells from the calls
// that it sees first, their parents.
func methodValues(r *rewriter, n ast.Node) Visit {
	switch x := n.(type) {
	case *ast.CallExpr:
		if sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr); ok {
			if r.called == nil {
				r.called = map[*ast.SelectorExpr]bool{}
			}
			r.called[sel] = true
		}
	case *ast.SelectorExpr:
		if !r.called[x] {
			r.methodRef(x)
		}
	}
	return Next
}

// methodRef rewrites a method value of a value receiver that is not
// called at once (get := t.Get) and a method expression ((*T).Set,
// T.Get). yaegi binds a method value's receiver when the value is
// called, not when it is evaluated (get() saw later changes of t), and
// fails to call method expressions ("Call with too many input
// arguments"). Both become function literals:
//
//	t.Get    →  func(r T) func() int { return r.Get }(t)
//	(*T).Set →  func(r *T, a0 int) { r.Set(a0) }
func (r *rewriter) methodRef(sel *ast.SelectorExpr) {
	s := r.info.Selections[sel]
	if s == nil {
		return
	}
	sig, ok := r.info.Types[sel].Type.(*types.Signature)
	if !ok {
		return
	}
	switch s.Kind() {
	case types.MethodVal:
		if _, ptr := s.Obj().Type().(*types.Signature).Recv().Type().Underlying().(*types.Pointer); ptr {
			return // the receiver is an address, bound either way
		}
		if _, iface := s.Recv().Underlying().(*types.Interface); iface {
			return
		}
		recv, deref := s.Recv(), ""
		if p, ok := recv.Underlying().(*types.Pointer); ok && len(s.Index()) == 1 {
			// c.Get with c a *T and Get of receiver T binds a copy of *c.
			recv, deref = p.Elem(), "*"
		}
		rt, ok1 := typeText(recv, r.names)
		ft, ok2 := typeText(sig, r.names)
		if !ok1 || !ok2 {
			return
		}
		v := r.fresh("mr")
		r.ed.Insert(sel.Pos(), "func("+v+" "+rt+") "+ft+" { return "+v+"."+sel.Sel.Name+" }("+deref, false)
		r.ed.Replace(sel.X.End(), sel.End(), ")")
	case types.MethodExpr:
		params := make([]string, sig.Params().Len())
		args := make([]string, sig.Params().Len())
		for k := range params {
			t, ok := typeText(sig.Params().At(k).Type(), r.names)
			if !ok {
				return
			}
			args[k] = r.fresh("ma")
			params[k] = args[k] + " " + t
		}
		spread := ""
		if sig.Variadic() {
			params[len(params)-1] = args[len(args)-1] + " ..." + strings.TrimPrefix(params[len(params)-1][len(args[len(args)-1])+1:], "[]")
			spread = "..."
		}
		res := ""
		if sig.Results().Len() > 0 {
			rt, ok := typeText(sig.Results(), r.names)
			if !ok {
				return
			}
			res = " " + rt
		}
		ret := ""
		if res != "" {
			ret = "return "
		}
		call := args[0] + "." + sel.Sel.Name + "(" + strings.Join(args[1:], ", ") + spread + ")"
		r.ed.Replace(sel.Pos(), sel.End(), "func("+strings.Join(params, ", ")+")"+res+" { "+ret+call+" }")
	}
}
