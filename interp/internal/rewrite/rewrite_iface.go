package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/gnnlab/gnnlab/interp/internal/rt"
)

// Conversions to error.
//
// yaegi keeps no reflect type for the predeclared error, so a value of an
// interpreted type that is not a pointer, assigned to a variable of type
// error (var err error = codeErr{404}, err = codeErr{404}) or converted
// (error(codeErr{404})), is stored as its bare value: fmt printed its
// fields ({404}) and passing it on to a function panicked (reflect: Call
// using struct as type error). Its conversions in a call argument or a
// return statement are right. So the value goes through a compiled
// identity function taking an error, __gnnlab_rt.Error(v), whose argument
// yaegi wraps with the type's methods.

// Comparisons of such values (err == target), of values of the
// session's interface types, and of two empty interfaces (any(w) ==
// any(r), w and r of two interface types holding one pointer: yaegi's
// wrappers differed), go through __gnnlab_rt.Equal, which compares the
// values inside the wrappers (internal/rt/errwrap.go).

// errorConv records the rewrites of the conversions to error, and of
// the comparisons of values of compiled interface types, in n.
func (r *rewriter) errorConv(n ast.Node) {
	var labeled map[ast.Stmt]*ast.LabeledStmt
	var commaOk map[ast.Expr]bool // v, ok := x.(T)
	ast.Inspect(n, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.LabeledStmt:
			if labeled == nil {
				labeled = map[ast.Stmt]*ast.LabeledStmt{}
			}
			labeled[x.Stmt] = x
		case *ast.AssignStmt:
			if len(x.Lhs) == 2 && len(x.Rhs) == 1 {
				if commaOk == nil {
					commaOk = map[ast.Expr]bool{}
				}
				commaOk[ast.Unparen(x.Rhs[0])] = true
			}
			if x.Tok != token.ASSIGN || len(x.Lhs) != len(x.Rhs) {
				return true
			}
			for k, l := range x.Lhs {
				r.toError(r.info.Types[l].Type, x.Rhs[k])
			}
		case *ast.ValueSpec:
			if len(x.Names) == 2 && len(x.Values) == 1 {
				if commaOk == nil {
					commaOk = map[ast.Expr]bool{}
				}
				commaOk[ast.Unparen(x.Values[0])] = true
			}
			if x.Type == nil || len(x.Values) != len(x.Names) {
				return true
			}
			t := r.info.Types[x.Type].Type
			for _, v := range x.Values {
				r.toError(t, v)
			}
		case *ast.TypeSwitchStmt:
			if !r.typeSwitch(x, labeled[x]) { // rewrite_typeswitch.go
				r.errorCases(x)
			}
		case *ast.TypeAssertExpr:
			if r.ifaceAssert(x, commaOk[x]) { // rewrite_typeswitch.go
				return true
			}
			if id, ok := x.Type.(*ast.Ident); ok && r.info.Uses[id] == types.Universe.Lookup("error") {
				r.ed.Replace(id.Pos(), id.End(), rt.ErrorType)
			}
		case *ast.FuncDecl:
			if obj, ok := r.info.Defs[x.Name].(*types.Func); ok && x.Body != nil {
				r.nilReturns(x.Body, obj.Type().(*types.Signature))
				r.structReturns(x.Body, obj.Type().(*types.Signature)) // rewrite_typeswitch.go
			}
		case *ast.FuncLit:
			if sig, ok := r.info.Types[x].Type.(*types.Signature); ok {
				r.nilReturns(x.Body, sig)
				r.structReturns(x.Body, sig)
			}
		case *ast.BinaryExpr:
			if (x.Op == token.EQL || x.Op == token.NEQ) && (compiledIface(r.info.Types[x.X]) || compiledIface(r.info.Types[x.Y]) ||
				sessionIfaceValue(r.info.Types[x.X]) || sessionIfaceValue(r.info.Types[x.Y]) ||
				emptyIface(r.info.Types[x.X].Type) && emptyIface(r.info.Types[x.Y].Type)) &&
				!r.info.Types[x.X].IsNil() && !r.info.Types[x.Y].IsNil() {
				call := rt.Equal + "("
				if x.Op == token.NEQ {
					call = "!" + call
				}
				r.ed.Insert(x.X.Pos(), call, false)
				r.ed.Replace(x.OpPos, x.OpPos+2, ",")
				r.ed.Insert(x.Y.End(), ")", false)
			}
		case *ast.CompositeLit:
			r.structElems(x) // rewrite_typeswitch.go
		case *ast.SendStmt:
			if ch, ok := r.info.Types[x.Chan].Type.Underlying().(*types.Chan); ok && isError(ch.Elem()) {
				r.structToError(x.Value)
			}
		case *ast.CallExpr:
			r.printAnyArgs(x) // rewrite_typeswitch.go
			r.structArgs(x)
			r.jsonCall(x) // rewrite_json.go
			if len(x.Args) != 1 {
				return true
			}
			if tv, ok := r.info.Types[x.Fun]; ok && tv.IsType() {
				r.toError(tv.Type, x.Args[0])
			}
		}
		return true
	})
}

// toError wraps v when dst is error and v's type is an interpreted type
// that is neither a pointer nor an interface.
func (r *rewriter) toError(dst types.Type, v ast.Expr) {
	if dst == nil || !types.Identical(dst, types.Universe.Lookup("error").Type()) {
		return
	}
	if !interpretedValueType(r.info.Types[v].Type) {
		return
	}
	if r.structToError(v) { // rewrite_typeswitch.go
		return
	}
	r.ed.Insert(v.Pos(), rt.Error+"(", false)
	r.ed.Insert(v.End(), ")", false)
}

// nilReturns wraps the variables of pointer types of the session returned
// as an error by a function of signature sig with body: return p, p a nil
// *E, gave a nil error (yaegi makes a nil pointer a nil interface), and
// err == nil was true. __gnnlab_rt.ErrorPtr returns, for a nil p, an error
// whose Error method calls p's.
func (r *rewriter) nilReturns(body *ast.BlockStmt, sig *types.Signature) {
	eachResult(body, sig, func(e ast.Expr, t types.Type) {
		if !types.Identical(t, types.Universe.Lookup("error").Type()) || !plainOperand(e) {
			return
		}
		ptr, ok := types.Unalias(r.info.Types[e].Type).(*types.Pointer)
		if !ok || !interpretedValueType(ptr.Elem()) {
			return
		}
		v := r.ed.Text(e.Pos(), e.End(), false)
		r.ed.Insert(e.Pos(), rt.ErrorPtr+"("+v+" == nil, func() string { return "+v+".Error() }, ", false)
		r.ed.Insert(e.End(), ")", false)
	})
}

// eachResult calls f with each result of the return statements of body
// (not those of its function literals) and the type sig gives it.
func eachResult(body *ast.BlockStmt, sig *types.Signature, f func(e ast.Expr, t types.Type)) {
	res := sig.Results()
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(x.Results) == res.Len() {
				for k, e := range x.Results {
					f(e, res.At(k).Type())
				}
			}
		}
		return true
	})
}

// errorCases writes a case error of a type switch as a case of the
// compiled error type (__gnnlab_rt.ErrorType, error's reflect type):
// yaegi's case error did not match a compiled error (fmt.Errorf's).
func (r *rewriter) errorCases(sw *ast.TypeSwitchStmt) {
	if es, ok := sw.Assign.(*ast.ExprStmt); ok && r.ifaceCase(sw) {
		// Without a variable, yaegi compares the names of the types,
		// which an interface never matches: give it one.
		r.ed.Insert(es.X.Pos(), helperPrefix+"_ := ", false)
	}
	for _, st := range sw.Body.List {
		cc, ok := st.(*ast.CaseClause)
		if !ok {
			continue
		}
		for _, e := range cc.List {
			if id, ok := e.(*ast.Ident); ok && r.info.Uses[id] == types.Universe.Lookup("error") {
				r.ed.Replace(id.Pos(), id.End(), rt.ErrorType)
			}
		}
	}
}

// ifaceCase reports whether a case of sw is an interface type with methods.
func (r *rewriter) ifaceCase(sw *ast.TypeSwitchStmt) bool {
	for _, st := range sw.Body.List {
		if cc, ok := st.(*ast.CaseClause); ok {
			for _, e := range cc.List {
				if tv := r.info.Types[e]; tv.IsType() {
					if it, ok := tv.Type.Underlying().(*types.Interface); ok && it.NumMethods() > 0 {
						return true
					}
				}
			}
		}
	}
	return false
}

// plainOperand reports whether e is a name or a selection of fields of
// a name, which may be evaluated more than once.
func plainOperand(e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		return x.Name != "nil"
	case *ast.SelectorExpr:
		return plainOperand(x.X)
	}
	return false
}

// compiledIface reports whether tv is a value of an interface type with
// methods that the session did not declare (error, fmt.Stringer).
func compiledIface(tv types.TypeAndValue) bool {
	if !tv.IsValue() || tv.Type == nil {
		return false
	}
	it, ok := tv.Type.Underlying().(*types.Interface)
	if !ok || it.NumMethods() == 0 {
		return false
	}
	if named, ok := types.Unalias(tv.Type).(*types.Named); ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == "main" {
		return false
	}
	return true
}

// sessionIfaceValue reports whether tv is a value of an interface type
// with methods that the session declared: yaegi compared two values of
// different such types holding one pointer as unequal (its wrappers of
// the value differ).
func sessionIfaceValue(tv types.TypeAndValue) bool {
	return tv.IsValue() && tv.Type != nil && sessionIface(tv.Type) && !compiledIface(tv)
}

// interpretedValueType reports whether t is a named type of the session
// (package main) that is neither a pointer nor an interface.
func interpretedValueType(t types.Type) bool {
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg().Path() != "main" {
		return false
	}
	switch named.Underlying().(type) {
	case *types.Pointer, *types.Interface:
		return false
	}
	return true
}

// compiledAssert returns an unsupported error for x.(T), x of a compiled
// interface type other than error (sort.Interface, fmt.Stringer,
// io.Reader) and T a struct type of the session with fields: yaegi's
// wrapper of the compiled interface holds the struct's last field in
// place of the value (its getConcreteValue looks for the value of an
// emulated interface there), so the assertion failed (ok false) or
// panicked (interface conversion: []int is not struct...), while the
// methods called through the interface work.
func (r *rewriter) compiledAssert(x, typ ast.Expr) error {
	if typ == nil {
		return nil
	}
	t, xt := r.info.Types[typ].Type, r.info.Types[x]
	if t == nil || !compiledIface(xt) || isError(xt.Type) || !sessionType(t) {
		return nil
	}
	if st, ok := t.Underlying().(*types.Struct); !ok || st.NumFields() == 0 {
		return nil // a pointer, or a value yaegi keeps whole
	}
	tn := types.TypeString(t, func(*types.Package) string { return "" })
	xn := types.TypeString(xt.Type, func(p *types.Package) string { return p.Name() })
	return &unsupportedError{typ.Pos(), "the interpreter cannot assert a value of the compiled interface type " + xn + " to the struct type " + tn +
		" of the session: its wrapper does not keep the struct (the methods called through the interface work); keep the value in a variable of type " + tn + ", or store a pointer (*" + tn + ") in the interface"}
}

// compiledSwitch returns compiledAssert's error for a case of a type
// switch on a value of a compiled interface type.
func (r *rewriter) compiledSwitch(sw *ast.TypeSwitchStmt) error {
	var x ast.Expr
	switch a := sw.Assign.(type) {
	case *ast.AssignStmt:
		if len(a.Rhs) == 1 {
			x = a.Rhs[0]
		}
	case *ast.ExprStmt:
		x = a.X
	}
	ta, ok := ast.Unparen(x).(*ast.TypeAssertExpr)
	if !ok {
		return nil
	}
	for _, c := range sw.Body.List {
		for _, t := range c.(*ast.CaseClause).List {
			if err := r.compiledAssert(ta.X, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// compiledAsserts is the pass "compiledasserts".
func compiledAsserts(r *rewriter, n ast.Node) Visit {
	switch x := n.(type) {
	case *ast.TypeAssertExpr:
		if e := r.compiledAssert(x.X, x.Type); e != nil {
			r.fail(e)
		}
	case *ast.TypeSwitchStmt:
		if e := r.compiledSwitch(x); e != nil {
			r.fail(e)
		}
	}
	return Next
}
