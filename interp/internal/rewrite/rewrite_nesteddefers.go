package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// Deferred calls in functions: the pass "nesteddefers". A defer in a
// function evaluates its function value and its arguments when the
// deferred call runs, not at the defer statement (defer fmt.Println(x)
// prints the last x), so the arguments are evaluated first: defer F(a,
// b) becomes { a1, a2 := a, b; defer F(a1, a2) }, the block's variables
// being new on each execution (the function value stays where it is:
// deferring a call of a function variable can hang yaegi).

// nestedDefers rewrites the defer statements inside the function bodies
// of n (FuncDecl and FuncLit), not those of the cell's top level, which
// defer.go handles.
func (r *rewriter) nestedDefers(n ast.Node) {
	var walk func(n ast.Node, inFunc bool)
	walk = func(n ast.Node, inFunc bool) {
		ast.Inspect(n, func(x ast.Node) bool {
			switch x := x.(type) {
			case *ast.FuncDecl:
				if x.Body != nil && !inFunc {
					walk(x.Body, true)
					return false
				}
			case *ast.FuncLit:
				if !inFunc {
					walk(x.Body, true)
					return false
				}
			case *ast.DeferStmt:
				if inFunc {
					r.nestedDefer(x)
					r.deferredLit(x)
				}
			}
			return true
		})
	}
	walk(n, false)
}

func (r *rewriter) nestedDefer(st *ast.DeferStmt) {
	call := st.Call
	recv := r.valueReceiver(call)
	if (len(call.Args) == 0 && recv == nil) || r.names == nil || !r.capturable(call, r.names) {
		return
	}
	if len(call.Args) == 1 {
		if _, tuple := r.info.Types[call.Args[0]].Type.(*types.Tuple); tuple {
			return // f(g()) with g of several results
		}
	}
	prefix := "{ "
	fun := r.ed.Text(call.Fun.Pos(), call.Fun.End(), false)
	if recv != nil {
		// The receiver is copied at the defer statement too (defer
		// t.done() of a value receiver): yaegi read it when the call ran.
		rv := r.fresh("dr")
		x := r.ed.Text(recv.X.Pos(), recv.X.End(), false)
		if _, ptr := r.info.TypeOf(recv.X).Underlying().(*types.Pointer); ptr {
			x = "*" + x
		}
		prefix += rv + " := " + x + "; "
		fun = rv + "." + recv.Sel.Name
	}
	if len(call.Args) == 0 {
		r.ed.Replace(st.Pos(), st.End(), prefix+"defer "+fun+"() }")
		return
	}
	vars := make([]string, len(call.Args))
	for k := range vars {
		vars[k] = r.fresh("da")
	}
	r.ed.Insert(st.Defer, prefix+strings.Join(vars, ", ")+" := ", false)
	r.ed.Replace(st.Defer, call.Lparen+1, "")
	spread := r.typedArgs(call, r.names)
	r.ed.Replace(call.Rparen, call.Rparen+1, "; defer "+fun+"("+strings.Join(vars, ", ")+spread+") }")
}

// valueReceiver returns the selector of a call of a method with a value
// receiver, declared by the type itself, on a variable or field of a
// concrete type (t.done(), p.show() with p a pointer), or nil.
func (r *rewriter) valueReceiver(call *ast.CallExpr) *ast.SelectorExpr {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	s, ok := r.info.Selections[sel]
	if !ok || s.Kind() != types.MethodVal || types.IsInterface(s.Recv()) || len(s.Index()) > 1 {
		return nil // promoted methods stay: their receiver is a field
	}
	fn, ok := s.Obj().(*types.Func)
	if !ok {
		return nil
	}
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return nil
	}
	if _, ptr := sig.Recv().Type().(*types.Pointer); ptr || types.IsInterface(sig.Recv().Type()) {
		return nil
	}
	switch x := ast.Unparen(sel.X).(type) {
	case *ast.Ident:
		if _, ok := r.info.Uses[x].(*types.Var); !ok {
			return nil
		}
	case *ast.SelectorExpr:
	default:
		return nil // a call or a literal is evaluated once anyway
	}
	if t := r.info.TypeOf(sel.X); t == nil || !validType(t) {
		return nil
	}
	return sel
}

// deferredLit passes the loop variables that a deferred function literal
// reads as arguments: defer func() { use(i) }() in a loop becomes
// defer func(i int) { use(i) }(i). yaegi makes the closure when the
// deferred call runs, so it saw the last iteration's variables, while the
// arguments of a deferred call are read per iteration. A variable the
// literal assigns stays captured.
func (r *rewriter) deferredLit(st *ast.DeferStmt) {
	lit, ok := ast.Unparen(st.Call.Fun).(*ast.FuncLit)
	if !ok || len(st.Call.Args) != 0 || lit.Type.Params.NumFields() != 0 || len(r.loops) == 0 {
		return
	}
	inLoop := func(p token.Pos) bool {
		for _, l := range r.loops {
			if l.Pos() <= p && p < l.End() && l.Pos() <= st.Pos() && st.Pos() < l.End() {
				return true
			}
		}
		return false
	}
	var order []*types.Var
	seen := map[*types.Var]bool{}
	assigned := map[types.Object]bool{}
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			for _, l := range x.Lhs {
				if id, ok := ast.Unparen(l).(*ast.Ident); ok {
					assigned[r.info.Uses[id]] = true
				}
			}
		case *ast.IncDecStmt:
			if id, ok := ast.Unparen(x.X).(*ast.Ident); ok {
				assigned[r.info.Uses[id]] = true
			}
		case *ast.UnaryExpr:
			if id, ok := ast.Unparen(x.X).(*ast.Ident); ok && x.Op == token.AND {
				assigned[r.info.Uses[id]] = true
			}
		case *ast.Ident:
			v, ok := r.info.Uses[x].(*types.Var)
			if ok && !v.IsField() && !seen[v] && !(lit.Pos() <= v.Pos() && v.Pos() < lit.End()) && inLoop(v.Pos()) {
				seen[v] = true
				order = append(order, v)
			}
		}
		return true
	})
	var params, args []string
	var vars []*types.Var
	for _, v := range order {
		if assigned[v] {
			continue
		}
		vars = append(vars, v)
		t, ok := typeText(v.Type(), r.names)
		if !ok {
			return
		}
		params = append(params, v.Name()+" "+t)
		args = append(args, v.Name())
	}
	if len(params) == 0 {
		return
	}
	r.ed.Replace(lit.Type.Params.Opening, lit.Type.Params.Closing+1, "("+strings.Join(params, ", ")+")")
	r.ed.Replace(st.Call.Lparen, st.Call.Rparen+1, "("+strings.Join(args, ", ")+")")
	r.deferArgs = append(r.deferArgs, deferArg{lit, st.Call, vars})
}

// deferArg is a deferred function literal to which deferredLit passes
// the loop variables vars: in its body they are its parameters, and the
// call's arguments read them.
type deferArg struct {
	lit  *ast.FuncLit
	call *ast.CallExpr
	vars []*types.Var
}

// param reports whether id, inside the deferred literal, names one of the
// variables made its parameters.
func (d deferArg) param(id *ast.Ident, v *types.Var) bool {
	if id.Pos() < d.lit.Body.Pos() || id.End() > d.lit.Body.End() {
		return false
	}
	return slices.Contains(d.vars, v)
}
