package rewrite

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// Rewrites of calls that yaegi gets wrong:
//
//   - a defer in a function evaluates its function value and its
//     arguments when the deferred call runs, not at the defer statement
//     (defer fmt.Println(x) prints the last x), so the arguments are
//     evaluated first: defer F(a, b) becomes
//     { a1, a2 := a, b; defer F(a1, a2) }, the block's variables being
//     new on each execution (the function value stays where it is:
//     deferring a call of a function variable can hang yaegi);
//   - new(expr) (Go 1.26) gives the zero value: it calls a generic helper
//     that returns a pointer to a copy of its argument;
//   - a call of a generic function whose type arguments are inferred
//     gets them written (Map(xs, f) becomes Map[int, string](xs, f)):
//     yaegi's inference fails with several type parameters and with
//     untyped constant arguments;
//   - main, once a cell defined it, is the renamed function (funcName):
//     an explicit main() calls it.

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
	sig, _ := r.info.Types[call.Fun].Type.Underlying().(*types.Signature)
	for k, a := range call.Args {
		if untyped(r.info.Types[a]) {
			t, _ := typeText(paramType(sig, k), r.names)
			r.ed.Insert(a.Pos(), t+"(", false)
			r.ed.Insert(a.End(), ")", false)
		}
	}
	spread := ""
	if call.Ellipsis.IsValid() {
		r.ed.Replace(call.Ellipsis, call.Ellipsis+token.Pos(len("...")), "")
		spread = "..."
	}
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

// mainRefs is the pass "main", a pass of single nodes (Pass.Node): see
// mainRef.
func mainRefs(r *rewriter, n ast.Node) Visit {
	if id, ok := n.(*ast.Ident); ok {
		r.mainRef(id)
	}
	return Next
}

// mainRef rewrites a use of the cell's or the session's func main.
func (r *rewriter) mainRef(id *ast.Ident) {
	if id.Name != "main" {
		return
	}
	switch obj := r.info.Uses[id].(type) {
	case *types.Func:
		if obj.Parent() != obj.Pkg().Scope() {
			return
		}
	case nil:
		if !r.hasMain {
			return
		}
	default:
		return
	}
	r.ed.Replace(id.Pos(), id.End(), helperMain)
}

// callsMain reports whether a statement of the cell's top level calls
// main.
func callsMain(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "main" {
				found = true
			}
		}
		return !found
	})
	return found
}

// instantiate writes the type arguments that go/types inferred for a call
// of a generic function, when they can all be written in the cell.
func (r *rewriter) instantiate(call *ast.CallExpr) {
	var id *ast.Ident
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return
	}
	if _, ok := r.info.Uses[id].(*types.Func); !ok {
		return
	}
	inst, ok := r.info.Instances[id]
	if !ok || inst.TypeArgs == nil || inst.TypeArgs.Len() == 0 {
		return
	}
	if strings.HasPrefix(id.Name, helperPrefix) {
		return
	}
	if r.inferable(call, id, inst) { // rewrite_typeparam.go
		return
	}
	args := make([]string, inst.TypeArgs.Len())
	for k := range args {
		t, ok := typeText(inst.TypeArgs.At(k), r.names)
		if !ok {
			return
		}
		args[k] = t
	}
	r.ed.Insert(call.Fun.End(), "["+strings.Join(args, ", ")+"]", false)
	if _, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		r.useInstance(id.Name+"["+strings.Join(args, ", ")+"]", len(args), inst.Type, call.Pos()) // geninstance.go
		r.severalResults(call, inst)                                                              // rewrite_typeparam.go
	}
}

// floatShift writes the values of the constants of vs, whose values are
// those of last, when they have a floating-point type and the values
// shift (KB Size = 1 << (10 * iota), with Size a float64): yaegi failed
// on them ("constant definition loop"). It reports whether it did.
func (r *rewriter) floatShift(vs, last *ast.ValueSpec) bool {
	shifts := false
	for _, e := range last.Values {
		ast.Inspect(e, func(n ast.Node) bool {
			if b, ok := n.(*ast.BinaryExpr); ok && (b.Op == token.SHL || b.Op == token.SHR) {
				shifts = true
			}
			return !shifts
		})
	}
	if !shifts {
		return false
	}
	vals := make([]string, len(vs.Names))
	typ := ""
	for k, name := range vs.Names {
		c, ok := r.info.Defs[name].(*types.Const)
		if !ok {
			return false
		}
		b, ok := c.Type().Underlying().(*types.Basic)
		if !ok || b.Info()&types.IsFloat == 0 || b.Info()&types.IsUntyped != 0 || c.Val().Kind() == constant.Unknown {
			return false
		}
		num, den, frac := strings.Cut(constant.ToFloat(c.Val()).ExactString(), "/")
		vals[k] = num + ".0"
		if frac {
			vals[k] += "/" + den
		}
		t, ok := typeText(c.Type(), r.names)
		if !ok || (typ != "" && t != typ) {
			return false
		}
		typ = t
	}
	if len(vs.Values) == 0 {
		r.ed.Insert(vs.Names[len(vs.Names)-1].End(), " "+typ+" = "+strings.Join(vals, ", "), false)
		return true
	}
	if len(vs.Values) != len(vs.Names) {
		return false
	}
	for k, e := range vs.Values {
		r.ed.Replace(e.Pos(), e.End(), typ+"("+vals[k]+")")
	}
	return true
}

// isIota reports whether id is the predeclared iota.
func (r *rewriter) isIota(id *ast.Ident) bool {
	if id.Name != "iota" {
		return false
	}
	c, ok := r.info.Uses[id].(*types.Const)
	return ok && c.Pkg() == nil
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

// selectBreaks rewrites break L, inside a select statement, of the for or
// range statement that l labels, into a goto to a label after the loop:
// yaegi's break did not leave the loop (the cell hung).
func (r *rewriter) selectBreaks(l *ast.LabeledStmt) {
	switch l.Stmt.(type) {
	case *ast.ForStmt, *ast.RangeStmt:
	default:
		return
	}
	var found []*ast.BranchStmt
	var walk func(n ast.Node, inSelect bool)
	walk = func(n ast.Node, inSelect bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.SelectStmt:
				if !inSelect {
					walk(m.Body, true)
					return false
				}
			case *ast.BranchStmt:
				if inSelect && m.Tok == token.BREAK && m.Label != nil && m.Label.Name == l.Label.Name {
					found = append(found, m)
				}
			}
			return true
		})
	}
	walk(l.Stmt, false)
	if len(found) == 0 {
		return
	}
	end := r.fresh("brk")
	for _, b := range found {
		r.ed.Replace(b.Pos(), b.End(), "goto "+end)
	}
	r.ed.Insert(l.End(), "; "+end+": ;", false)
}

// selectBreaksPass is the pass "selectbreaks".
func selectBreaksPass(r *rewriter, n ast.Node) Visit {
	if x, ok := n.(*ast.LabeledStmt); ok {
		r.selectBreaks(x)
	}
	return Next
}

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

// What the passes of generic calls did with a call (rewriter.genericCalls).
const (
	genericFailed  = 1 // genericmacros found it unsupported
	genericWritten = 2 // written out, or a call of the session's version
)

// genericMacros is the pass "genericmacros" (genericmacro.go).
func genericMacros(r *rewriter, n ast.Node) Visit {
	x, ok := n.(*ast.CallExpr)
	if !ok {
		return Next
	}
	done, e := r.macroCall(x)
	if e != nil {
		r.fail(e)
		r.markGeneric(x, genericFailed)
	}
	if done {
		r.markGeneric(x, genericWritten)
	}
	return Next
}

// genericStd is the pass "genericstd" (genericstd.go): calls that
// genericmacros saw are left alone.
func genericStd(r *rewriter, n ast.Node) Visit {
	x, ok := n.(*ast.CallExpr)
	if !ok || r.genericCalls[x] != 0 {
		return Next
	}
	done, e := r.genericCallee(x)
	if e != nil {
		r.fail(e)
	}
	if done {
		r.markGeneric(x, genericWritten)
	}
	return Next
}

// typeArgs is the pass "typeargs": calls that the passes before wrote
// out or redirected are left alone.
func typeArgs(r *rewriter, n ast.Node) Visit {
	if x, ok := n.(*ast.CallExpr); ok && r.genericCalls[x] != genericWritten {
		r.instantiate(x)
	}
	return Next
}

func (r *rewriter) markGeneric(x *ast.CallExpr, how int) {
	if r.genericCalls == nil {
		r.genericCalls = map[*ast.CallExpr]int{}
	}
	r.genericCalls[x] = how
}
