package rewrite

import (
	"go/ast"
	"go/types"
	"strconv"
	"strings"

	"github.com/gnnlab/gnnlab/interp/internal/rt"
)

// Type switches and assertions on empty interfaces and errors (see
// internal/rt/ifacevalue.go).
//
// A type switch whose operand is an empty interface or an error and which
// has a case of a type of the session, a pointer to one, error,
// fmt.Stringer or an interface of the session (or whose operand is of a
// compiled interface type, an io.Reader, and which has a case of a
// pointer to a type of the session: yaegi matched no such case),
//
//	switch x := v.(type) {
//	case codeErr: A
//	case error, string: B
//	}
//
// becomes an expression switch over assertions of the operand, made once
// (the names are fresh ones):
//
//	{ var ts interface{} = v; var ts_0, ts_1, ts_2 bool; if ts != nil {
//	_, ts_0 = ts.(codeErr); _, ts_1 = __gnnlab_aserr(ts); _, ts_2 = ts.(string); };
//	switch {
//	case ts_0: x := ts.(codeErr); _ = x; A
//	case ts_1 || ts_2: x := ts; _ = x; B
//	} }
//
// (an error operand keeps its type: yaegi's assertions of an error look
// through the wrappers). case error and case fmt.Stringer, and x.(error)
// and x.(fmt.Stringer) of an empty interface x, call __gnnlab_aserr and
// __gnnlab_asstr (__gnnlab_musterr and __gnnlab_muststr without ok),
// which ask the compiled AsError and AsStringer first and yaegi's
// assertion for the values these do not know (of a named type that is
// not a struct). A case or an assertion of an interface of the session
// asks the compiled HasMethods (yaegi's assertion counted the methods of
// *T as methods of T), and yaegi's assertion of __gnnlab_iface(x), which
// rewraps a bare value, where HasMethods does not know the value; the
// value is bound by a type switch of that one case: yaegi's x := v.(I)
// panicked (reflect.Set: interface {} is not assignable to
// interp.valueInterface). A case T, or x.(T), of a compiled type T that is
// the underlying type of a named type of the session with methods asks
// the compiled Wrapped first (yaegi's assertion to int matched its wrapper
// of a type level int). A switch with an init statement, or with a case
// whose type holds a type parameter, is left as it is.

// typeSwitch records the rewrite of sw and reports whether it made it;
// label is the labelled statement around sw, or nil.
func (r *rewriter) typeSwitch(sw *ast.TypeSwitchStmt, label *ast.LabeledStmt) bool {
	if sw.Init != nil {
		return false
	}
	var x *ast.Ident
	var ta *ast.TypeAssertExpr
	switch a := sw.Assign.(type) {
	case *ast.AssignStmt:
		if len(a.Lhs) != 1 || len(a.Rhs) != 1 {
			return false
		}
		x, _ = a.Lhs[0].(*ast.Ident)
		ta, _ = a.Rhs[0].(*ast.TypeAssertExpr)
	case *ast.ExprStmt:
		ta, _ = a.X.(*ast.TypeAssertExpr)
	}
	if ta == nil {
		return false
	}
	opType := "interface{}"
	switch t := r.info.Types[ta.X].Type; {
	case isError(t):
		// The operand keeps its type: yaegi's assertions of an error
		// look through the wrappers (structError, internal/rt/ifacevalue.go).
		opType = "error"
	case compiledIface(r.info.Types[ta.X]) && sessionPointerCase(sw, r.info):
		// yaegi's type switch on a compiled interface (an io.Reader)
		// matched no case of a pointer type of the session, where its
		// assertion r.(*T) works: the operand keeps its type too.
		text, ok := typeText(t, r.names)
		if !ok {
			return false
		}
		opType = text
	case !emptyIface(t):
		return false
	}
	relevant := false
	for _, st := range sw.Body.List {
		for _, e := range st.(*ast.CaseClause).List {
			tv := r.info.Types[e]
			if tv.IsNil() {
				continue
			}
			if !tv.IsType() || hasTypeParam(tv.Type) {
				return false
			}
			relevant = relevant || sessionOrIfaceType(tv.Type)
		}
	}
	if !relevant {
		return false
	}
	v := r.fresh("ts")
	var oks []string
	var asserts strings.Builder
	conds := map[ast.Expr]string{}
	binds := map[ast.Expr]string{} // the value of x in a case of one type
	wrapped := false               // whether the assertions need v_w
	for _, st := range sw.Body.List {
		for _, e := range st.(*ast.CaseClause).List {
			if r.info.Types[e].IsNil() {
				conds[e] = v + " == nil"
				continue
			}
			ok := v + "_" + strconv.Itoa(len(oks))
			oks = append(oks, ok)
			conds[e] = ok
			t := r.info.Types[e].Type
			text := r.ed.Text(e.Pos(), e.End(), false) // before the edits below cover it
			switch {
			case isError(t), isStringer(t):
				call := helperPrefix + "asstr(" + v + ")"
				if isError(t) {
					call = helperPrefix + "aserr(" + v + ")"
				}
				asserts.WriteString("_, " + ok + " = " + call + "; ")
				binds[e] = call
			case sessionIface(t):
				w := helperPrefix + "iface(" + v + ")"
				asserts.WriteString(implementsCheck(ok, v, t, text))
				// Bound by a type switch of one case (see above).
				binds[e] = "\x00" + w + "\x00" + text
			case opType != "error" && !sessionType(t) && r.underlyingOfMethods(t) != "":
				// yaegi's wrapper holds a value of a type of the
				// session, never of a compiled one, but its assertion
				// to int matched a type level int.
				asserts.WriteString("if !" + v + "_w { _, " + ok + " = " + v + ".(" + text + ") }; ")
				binds[e] = v + ".(" + text + ")"
				wrapped = true
			default:
				asserts.WriteString("_, " + ok + " = " + v + ".(" + text + "); ")
				binds[e] = v + ".(" + text + ")"
			}
		}
	}
	head := "{ var " + v + " " + opType + " = "
	pre := "; "
	if len(oks) > 0 {
		// yaegi's assertion of a nil any to an interface with ok
		// dereferenced nil.
		w := ""
		if wrapped {
			w = v + "_w := " + rt.Wrapped + "(" + v + "); "
		}
		pre += "var " + strings.Join(oks, ", ") + " bool; if " + v + " != nil { " + w + asserts.String() + "}; "
	}
	if label != nil {
		// The statements go before the label, which must stay on the
		// switch: the operand's text is moved there.
		r.ed.Insert(label.Pos(), head+r.ed.Text(ta.X.Pos(), ta.X.End(), false)+pre, false)
		r.ed.Replace(sw.Switch, sw.Body.Lbrace, "switch ")
	} else {
		r.ed.Replace(sw.Switch, ta.X.Pos(), head)
		r.ed.Replace(ta.X.End(), sw.Body.Lbrace, pre+"switch ")
	}
	for _, st := range sw.Body.List {
		cc := st.(*ast.CaseClause)
		if len(cc.List) > 0 {
			var cs []string
			for _, e := range cc.List {
				cs = append(cs, conds[e])
			}
			r.ed.Replace(cc.List[0].Pos(), cc.List[len(cc.List)-1].End(), strings.Join(cs, " || "))
		}
		if x == nil {
			continue
		}
		bind := " " + x.Name + " := " + v + ";"
		if len(cc.List) == 1 && !r.info.Types[cc.List[0]].IsNil() {
			b := binds[cc.List[0]]
			bind = " " + x.Name + " := " + b + ";"
			if strings.HasPrefix(b, "\x00") {
				parts := strings.Split(b, "\x00")
				y := r.fresh("ty")
				bind = " var " + x.Name + " " + parts[2] + "; switch " + y + " := " + parts[1] + ".(type) { case " + parts[2] + ": " + x.Name + " = " + y + " };"
				if impls := r.promotedImpls(r.info.Types[cc.List[0]].Type); len(impls) > 0 { // rewrite_promoted.go
					bind += " if " + x.Name + " == nil { " + r.promotedAsserts(v, impls, x.Name+" = \x00") + "};"
				}
			} else if strings.HasPrefix(b, helperPrefix+"as") {
				bind = " " + x.Name + ", _ := " + b + ";"
			}
		}
		r.ed.Insert(cc.Colon+1, bind+" _ = "+x.Name+";", false)
	}
	// A replacement of the brace, not an insertion after it, so that it
	// goes before what other rewrites insert there (the function literal
	// of a statement at the top of a cell).
	r.ed.Replace(sw.Body.Rbrace, sw.Body.Rbrace+1, "} }")
	return true
}

// ifaceAssert records the rewrite of x.(I), x an empty interface and I
// error or fmt.Stringer, to a call of __gnnlab_aserr or __gnnlab_asstr
// (commaOk: v, ok := x.(I)) or of __gnnlab_musterr or __gnnlab_muststr,
// and, I an interface of the session (x an empty interface or an error),
// to a function literal that checks the method set (implementsCheck) and
// binds the value with a type switch of one case, as typeSwitch does, or
// else with an assertion to a type that has methods of I by embedding
// (rewrite_promoted.go) (yaegi's assertion panicked, and with ok
// dereferenced nil for a nil x; of an error holding a struct of the
// session, it failed); T the underlying type of a named type of
// the session with methods, to a function literal that asks Wrapped
// first. It reports whether it made the rewrite.
func (r *rewriter) ifaceAssert(ta *ast.TypeAssertExpr, commaOk bool) bool {
	if ta.Type == nil {
		return false
	}
	t := r.info.Types[ta.Type].Type
	if xt := r.info.Types[ta.X].Type; t == nil || !emptyIface(xt) && !(isError(xt) && sessionIface(t)) {
		return false
	}
	switch {
	case isError(t), isStringer(t):
		name := "str("
		if isError(t) {
			name = "err("
		}
		fn := "must"
		if commaOk {
			fn = "as"
		}
		r.ed.Insert(ta.X.Pos(), helperPrefix+fn+name, false)
		r.ed.Replace(ta.X.End(), ta.End(), ")")
	case sessionIface(t):
		text := r.ed.Text(ta.Type.Pos(), ta.Type.End(), false)
		w, y, ok := r.fresh("tw"), r.fresh("ty"), r.fresh("tok")
		lit := "func() (" + text + ", bool) { var " + w + " interface{} = "
		fail := "return nil, false"
		if !commaOk {
			lit = "func() " + text + " { var " + w + " interface{} = "
			it := t.Underlying().(*types.Interface)
			fail = "panic(" + rt.Conversion + "(" + w + ", " + strconv.Quote(types.TypeString(t, mainQualifier)) + ", " + methodNames(it) + "))"
		}
		res := y
		if commaOk {
			res = y + ", true"
		}
		r.ed.Replace(ta.Pos(), ta.X.Pos(), lit)
		promoted := r.promotedAsserts(w, r.promotedImpls(t), "return "+strings.Replace(res, y, "\x00", 1)) // rewrite_promoted.go
		r.ed.Replace(ta.X.End(), ta.End(), "; "+ok+" := false; if "+w+" != nil { "+implementsCheck(ok, w, t, text)+"}; if !"+ok+" { "+fail+
			" }; switch "+y+" := "+helperPrefix+"iface("+w+").(type) { case "+text+": return "+res+" }; "+promoted+fail+" }()")
	case !types.IsInterface(t) && !sessionType(t) && r.underlyingOfMethods(t) != "":
		// x.(int) where the session has a type level int with methods:
		// yaegi's assertion of its wrapper of a level matched int.
		text, okText := typeText(t, r.names)
		if !okText {
			return false
		}
		w := r.fresh("tw")
		lit := "func() (" + text + ", bool) { var " + w + " interface{} = "
		tail := "; if " + rt.Wrapped + "(" + w + ") { var z " + text + "; return z, false }; z, ok := " + w + ".(" + text + "); return z, ok }()"
		if !commaOk {
			lit = "func() " + text + " { var " + w + " interface{} = "
			tail = "; if " + rt.Wrapped + "(" + w + ") { panic(" + rt.NotType + "(" + strconv.Quote(r.underlyingOfMethods(t)) + ", " + strconv.Quote(text) + ")) }; return " + w + ".(" + text + ") }()"
		}
		r.ed.Replace(ta.Pos(), ta.X.Pos(), lit)
		r.ed.Replace(ta.X.End(), ta.End(), tail)
	default:
		return false
	}
	return true
}

// underlyingOfMethods returns the name (main.level) of a named type of the
// session with methods whose underlying type is t, or "" (several names
// are joined by " or ").
func (r *rewriter) underlyingOfMethods(t types.Type) string {
	if r.underlying == nil {
		r.underlying = map[types.Type]string{}
		var scope *types.Scope
		for _, obj := range r.info.Defs {
			if obj != nil && obj.Pkg() != nil {
				scope = obj.Pkg().Scope()
				break
			}
		}
		if scope == nil {
			for _, obj := range r.info.Uses {
				if obj != nil && obj.Pkg() != nil && obj.Pkg().Path() == "main" {
					scope = obj.Pkg().Scope()
					break
				}
			}
		}
		if scope != nil {
			for _, n := range scope.Names() {
				tn, ok := scope.Lookup(n).(*types.TypeName)
				if !ok || tn.IsAlias() {
					continue
				}
				u := tn.Type().Underlying()
				switch u.(type) {
				case *types.Struct, *types.Interface:
					continue
				}
				if types.NewMethodSet(types.NewPointer(tn.Type())).Len() == 0 {
					continue
				}
				if old, ok := r.underlying[u]; ok {
					r.underlying[u] = old + " or main." + n
				} else {
					r.underlying[u] = "main." + n
				}
			}
		}
	}
	for u, name := range r.underlying {
		if types.Identical(u, t) {
			return name
		}
	}
	return ""
}

// implementsCheck is the statement that sets ok to whether v (not nil)
// implements the interface t of the session, written text: the compiled
// HasMethods knows the method sets of the session's struct types and of
// compiled types; for other values (of a named type that is not a struct)
// yaegi's assertion answers. yaegi's alone counted the methods of *T as
// methods of T.
func implementsCheck(ok, v string, t types.Type, text string) string {
	k := helperPrefix + "k"
	return "if " + k + " := " + rt.HasMethods + "(" + v + ", " + methodNames(t.Underlying().(*types.Interface)) + "); " + k + " >= 0 { " + ok + " = " + k + " == 1 } else { _, " + ok + " = " + helperPrefix + "iface(" + v + ").(" + text + ") }; "
}

// methodNames is the list of it's method names as Go string literals.
func methodNames(it *types.Interface) string {
	var ns []string
	for i := 0; i < it.NumMethods(); i++ {
		ns = append(ns, strconv.Quote(it.Method(i).Name()))
	}
	return strings.Join(ns, ", ")
}

// mainQualifier writes the session's package as main.
func mainQualifier(p *types.Package) string { return p.Name() }

// printAnyArgs records the rewrite of the arguments of static type any,
// or of a struct type of the session with an Error or String method (not
// of Errorf), of a call of a printing function of fmt to
// __gnnlab_rt.PrintOperand(a), or ErrorfOperand(a) for fmt.Errorf
// (internal/rt/ifacevalue.go).
func (r *rewriter) printAnyArgs(call *ast.CallExpr) {
	name := r.fmtCall(call)
	k, ok := printFuncs[name]
	if !ok || call.Ellipsis.IsValid() {
		return
	}
	helper := rt.PrintOperand + "("
	if name == "Errorf" {
		helper = rt.ErrorfOperand + "("
	}
	// A value of a named non-struct type of the session (type level int)
	// in an any is yaegi's wrapper, which PrintOperand makes the value's
	// fmt operand (internal/rt/fmtany.go).
	for i, a := range call.Args {
		t := r.info.Types[a].Type
		if i >= k && !r.info.Types[a].IsNil() && (emptyIface(t) || name != "Errorf" && printableStruct(t) && !r.fmtOperand(t)) {
			r.ed.Insert(a.Pos(), helper, false)
			r.ed.Insert(a.End(), ")", false)
		}
	}
}

// Struct values as errors.
//
// yaegi's error wrapper of a value of a struct type holds the struct's
// last field, not the value, so err.(T), case T, errors.As with a T
// target and err == T{...} missed it. Where a value of a struct type of
// the session that implements error becomes an error (an assignment,
// conversion, return, call argument, element of a composite literal,
// send, or fmt.Errorf operand), it goes
// through func(v T) error { return __gnnlab_rt.StructError(v, v) }(x),
// which keeps the value beside yaegi's wrapper (structError,
// internal/rt/ifacevalue.go).

// structToError records that rewrite of v when v is such a value, and
// reports whether it did.
func (r *rewriter) structToError(v ast.Expr) bool {
	t := r.info.Types[v].Type
	if !structErrorType(t) {
		return false
	}
	text, ok := typeText(t, r.names)
	if !ok {
		return false
	}
	r.ed.Insert(v.Pos(), "func(v "+text+") error { return "+rt.StructError+"(v, v) }(", false)
	r.ed.Insert(v.End(), ")", false)
	return true
}

// structErrorType reports whether t is a struct type of the session
// (not generic) that implements error.
func structErrorType(t types.Type) bool {
	if !interpretedValueType(t) || hasTypeParam(t) {
		return false
	}
	if _, ok := t.Underlying().(*types.Struct); !ok {
		return false
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || named.TypeParams().Len() > 0 {
		return false
	}
	return types.Implements(t, types.Universe.Lookup("error").Type().Underlying().(*types.Interface))
}

// structReturns records the rewrite of the struct values returned as an
// error by a function of signature sig with body.
func (r *rewriter) structReturns(body *ast.BlockStmt, sig *types.Signature) {
	eachResult(body, sig, func(e ast.Expr, t types.Type) {
		if isError(t) {
			r.structToError(e)
		}
	})
}

// structArgs records the rewrite of the struct values passed as an error
// to a function (errors.Is(err, T{}), f(T{})), and of those passed to
// fmt.Errorf.
func (r *rewriter) structArgs(call *ast.CallExpr) {
	if r.fmtCall(call) == "Errorf" {
		for _, a := range call.Args[1:] {
			r.structToError(a)
		}
		return
	}
	tv, ok := r.info.Types[call.Fun]
	if !ok || tv.IsType() {
		return
	}
	sig, ok := tv.Type.Underlying().(*types.Signature)
	if !ok || call.Ellipsis.IsValid() {
		return
	}
	for i, a := range call.Args {
		var pt types.Type
		switch n := sig.Params().Len(); {
		case sig.Variadic() && i >= n-1:
			pt = sig.Params().At(n - 1).Type().(*types.Slice).Elem()
		case i < n:
			pt = sig.Params().At(i).Type()
		}
		if pt != nil && isError(pt) {
			r.structToError(a)
		}
	}
}

// structElems records the rewrite of the struct values that are elements
// of type error of a composite literal ([]error{T{}}, a field of type
// error).
func (r *rewriter) structElems(lit *ast.CompositeLit) {
	t := r.info.Types[lit].Type
	if t == nil {
		return
	}
	for i, e := range lit.Elts {
		var et types.Type
		val := e
		kv, isKV := e.(*ast.KeyValueExpr)
		if isKV {
			val = kv.Value
		}
		switch u := t.Underlying().(type) {
		case *types.Slice:
			et = u.Elem()
		case *types.Array:
			et = u.Elem()
		case *types.Map:
			et = u.Elem()
		case *types.Struct:
			if isKV {
				if id, ok := kv.Key.(*ast.Ident); ok {
					if f, ok := r.info.Uses[id].(*types.Var); ok {
						et = f.Type()
					}
				}
			} else if i < u.NumFields() {
				et = u.Field(i).Type()
			}
		}
		if et != nil && isError(et) {
			r.structToError(val)
		}
	}
}

// sessionType reports whether t is a named type of the session or a
// pointer to one.
func sessionType(t types.Type) bool {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := types.Unalias(t).(*types.Named)
	return ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == "main"
}

// printableStruct reports whether t is a struct type of the session, or a
// pointer to one, with an Error or String method.
func printableStruct(t types.Type) bool {
	if t == nil || hasTypeParam(t) {
		return false
	}
	base := t
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		base = p.Elem()
	}
	if _, ok := base.Underlying().(*types.Struct); !ok || !interpretedValueType(base) {
		return false
	}
	ms := types.NewMethodSet(t)
	return ms.Lookup(nil, "Error") != nil || ms.Lookup(nil, "String") != nil
}

// emptyIface reports whether t is an interface without methods (any),
// not a type parameter.
func emptyIface(t types.Type) bool {
	if t == nil {
		return false
	}
	if _, ok := types.Unalias(t).(*types.TypeParam); ok {
		return false
	}
	it, ok := t.Underlying().(*types.Interface)
	return ok && it.NumMethods() == 0 && !it.IsImplicit()
}

// sessionPointerCase reports whether a case of sw is a pointer to a type
// of the session.
func sessionPointerCase(sw *ast.TypeSwitchStmt, info *types.Info) bool {
	for _, st := range sw.Body.List {
		for _, e := range st.(*ast.CaseClause).List {
			if tv := info.Types[e]; tv.IsType() {
				if _, ok := types.Unalias(tv.Type).(*types.Pointer); ok && sessionType(tv.Type) {
					return true
				}
			}
		}
	}
	return false
}

// sessionOrIfaceType reports whether t is a type of the session, a
// pointer to one, error, fmt.Stringer or an interface of the session.
func sessionOrIfaceType(t types.Type) bool {
	if isError(t) || isStringer(t) || sessionIface(t) {
		return true
	}
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	return interpretedValueType(t)
}

// sessionIface reports whether t is an interface type with methods that
// the session declared or wrote (type shape interface{...}, or an
// interface literal), not one of a compiled package or error.
func sessionIface(t types.Type) bool {
	it, ok := t.Underlying().(*types.Interface)
	if !ok || it.NumMethods() == 0 {
		return false
	}
	if named, ok := types.Unalias(t).(*types.Named); ok {
		return named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == "main"
	}
	return true
}

// isError reports whether t is the predeclared error.
func isError(t types.Type) bool {
	return types.Unalias(t) == types.Universe.Lookup("error").Type()
}

// isStringer reports whether t is fmt.Stringer.
func isStringer(t types.Type) bool {
	named, ok := types.Unalias(t).(*types.Named)
	return ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == "fmt" && named.Obj().Name() == "Stringer"
}

// hasTypeParam reports whether t mentions a type parameter.
func hasTypeParam(t types.Type) bool {
	found := false
	var walk func(types.Type)
	walk = func(t types.Type) {
		if found || t == nil {
			return
		}
		switch x := types.Unalias(t).(type) {
		case *types.TypeParam:
			found = true
		case *types.Pointer:
			walk(x.Elem())
		case *types.Slice:
			walk(x.Elem())
		case *types.Array:
			walk(x.Elem())
		case *types.Map:
			walk(x.Key())
			walk(x.Elem())
		case *types.Chan:
			walk(x.Elem())
		case *types.Named:
			for i := 0; i < x.TypeArgs().Len(); i++ {
				walk(x.TypeArgs().At(i))
			}
		case *types.Signature:
			for i := 0; i < x.Params().Len(); i++ {
				walk(x.Params().At(i).Type())
			}
			for i := 0; i < x.Results().Len(); i++ {
				walk(x.Results().At(i).Type())
			}
		}
	}
	walk(t)
	return found
}
