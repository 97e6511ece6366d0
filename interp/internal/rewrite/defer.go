package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/gnnlab/gnnlab/interp/internal/rt"
)

// Deferred calls of a cell's top level.
//
// yaegi runs the statements of every evaluation in one global frame whose
// list of deferred calls is never emptied: a `defer` at the top of a cell
// would run at the end of that cell and again after every later one. The
// session therefore rewrites such a defer into a call of the compiled
// helper Defer, which records a closure; the session runs the closures of
// a cell, last first, when its statements end (normally, by a panic or by
// an interrupt), as Go runs main's deferred calls.
//
// The function value and the arguments are evaluated at the defer
// statement, as in Go: `defer F(a, b)` becomes
//
//	__gnnlab_rt.Defer(func() func() { f, a1, a2 := F, a, b; return func() { f(a1, a2) } }())
//
// with constant arguments converted to their parameter's type.

// deferStmt records the rewrite of a defer statement of the cell's top
// level (see above).
func (r *rewriter) deferStmt(st *ast.DeferStmt, names map[string]string) {
	call := st.Call
	if !r.capturable(call, names) {
		// A builtin, a generic function or a conversion: the call runs at
		// the end with its arguments evaluated then.
		r.ed.Replace(st.Defer, call.Pos(), rt.Defer+"(func() { ")
		r.ed.Insert(call.End(), " })", false)
		return
	}
	vars := []string{helperPrefix + "f"}
	for k := range call.Args {
		vars = append(vars, fmt.Sprintf("%sa%d", helperPrefix, k))
	}
	// A method value is evaluated as its receiver (yaegi would read the
	// receiver's variable when the call runs), its address when the
	// method wants a pointer and Go would take it.
	first, callee, addr := call.Fun, vars[0], ""
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		if s := r.info.Selections[sel]; s != nil && s.Kind() == types.MethodVal {
			first, callee = sel.X, vars[0]+"."+sel.Sel.Name
			_, wantsPtr := s.Obj().Type().(*types.Signature).Recv().Type().Underlying().(*types.Pointer)
			_, isPtr := s.Recv().Underlying().(*types.Pointer)
			if wantsPtr && !isPtr {
				addr = "&"
			}
		}
	}
	r.ed.Replace(st.Defer, first.Pos(), rt.Defer+"(func() func() { "+strings.Join(vars, ", ")+" := "+addr)
	if len(call.Args) == 0 {
		r.ed.Replace(first.End(), call.Rparen+1, "; return func() { "+callee+"() } }())")
		return
	}
	r.ed.Replace(first.End(), call.Lparen+1, ", ")
	spread := r.typedArgs(call, names)
	r.ed.Replace(call.Rparen, call.Rparen+1, "; return func() { "+callee+"("+strings.Join(vars[1:], ", ")+spread+") } }())")
}

// capturable reports whether call's function and arguments can be
// evaluated ahead of the call: its function is a value of a known
// non-generic signature, and each constant argument has a parameter type
// that can be written.
func (r *rewriter) capturable(call *ast.CallExpr, names map[string]string) bool {
	tv, ok := r.info.Types[call.Fun]
	if !ok || !tv.IsValue() || tv.Type == nil {
		return false
	}
	sig, ok := tv.Type.Underlying().(*types.Signature)
	if !ok || sig.TypeParams().Len() > 0 {
		return false
	}
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if _, b := r.info.Uses[id].(*types.Builtin); b {
			return false
		}
	}
	for k, a := range call.Args {
		if !untyped(r.info.Types[a]) {
			continue
		}
		t := paramType(sig, k)
		if t == nil {
			return false
		}
		if _, ok := typeText(t, names); !ok {
			return false
		}
	}
	return true
}

// untyped reports whether an argument is a constant or nil, which a
// variable cannot hold without a type.
func untyped(tv types.TypeAndValue) bool { return tv.Value != nil || tv.IsNil() }

// paramType is the type of argument k of a call of sig (the element type
// for a variadic parameter); nil when there is none.
func paramType(sig *types.Signature, k int) types.Type {
	if sig == nil {
		return nil
	}
	n := sig.Params().Len()
	if sig.Variadic() && k >= n-1 {
		if s, ok := sig.Params().At(n - 1).Type().(*types.Slice); ok {
			return s.Elem()
		}
		return nil
	}
	if k >= n {
		return nil
	}
	return sig.Params().At(k).Type()
}

// defers records the rewrites of the defer statements of the cell's top
// level, outside function literals.
func (r *rewriter) defers(body *ast.BlockStmt, names map[string]string) {
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.DeferStmt:
			r.deferStmt(n, names)
		}
		return true
	})
}

// Panics of deferred calls in functions.
//
// yaegi runs the deferred calls of a function in one loop that a panic
// leaves: a deferred call that panics skips the calls deferred before it,
// which Go still runs, and their recover does not see the new panic. The
// session guards the deferred function literals of a function that may
// defer more than one call (two defer statements, or one in a loop), one
// of them a function literal:
//
//	func f() {
//		__gnnlab_dp1 := __gnnlab_rt.NewPanics(); defer __gnnlab_dp1.End()
//		defer func() { defer func() { __gnnlab_dp1.Catch(recover()) }(); ... }()
//		...
//	}
//
// A guarded literal that panics leaves its panic in the function's
// deferPanic, the other deferred calls run, a recover() directly in a
// later guarded literal (__gnnlab_dp1.Recovered(recover())) gives that
// newest panic, and End, deferred first so run last, panics with it if
// none recovered it. A guarded literal that defers a literal itself gets a
// deferPanic of its own, whose panic its guard hands on
// (__gnnlab_dp2 := ...; defer func() { __gnnlab_dp1.Forward(__gnnlab_dp2, recover()) }()).
// Deferred calls that are not function literals are not guarded.

// deferGuards records the guards of the deferred function literals of
// the functions in n (see above) and returns the deferPanic variable that
// each recover() directly in a guarded literal reads.
func (r *rewriter) deferGuards(n ast.Node) map[*ast.CallExpr]string {
	var slots map[*ast.CallExpr]string
	var function func(body *ast.BlockStmt, parent string)
	function = func(body *ast.BlockStmt, parent string) {
		var defers []*ast.DeferStmt
		var lits []*ast.FuncLit
		var loops []ast.Node
		ast.Inspect(body, func(x ast.Node) bool {
			switch x := x.(type) {
			case *ast.FuncLit:
				lits = append(lits, x)
				return false
			case *ast.DeferStmt:
				defers = append(defers, x)
			case *ast.ForStmt, *ast.RangeStmt:
				loops = append(loops, x)
			}
			return true
		})
		inLoop, lit := false, false
		for _, d := range defers {
			for _, l := range loops {
				inLoop = inLoop || (l.Pos() <= d.Pos() && d.End() <= l.End())
			}
			_, ok := ast.Unparen(d.Call.Fun).(*ast.FuncLit)
			lit = lit || ok
		}
		guarded := 0
		if parent != "" {
			guarded = 1
		}
		slot, text := "", ""
		if lit && (len(defers)+guarded >= 2 || inLoop) {
			slot = r.fresh("dp")
			text = " " + slot + " := " + rt.NewPanics + "();"
			if parent != "" {
				text += " defer func() { " + parent + ".Forward(" + slot + ", recover()) }();"
			} else {
				text += " defer " + slot + ".End();"
			}
		} else if parent != "" {
			text = " defer func() { " + parent + ".Catch(recover()) }();"
		}
		if text != "" {
			r.ed.Insert(body.Lbrace+1, text, false)
		}
		deferred := map[*ast.FuncLit]bool{}
		if slot != "" {
			for _, d := range defers {
				if lit, ok := ast.Unparen(d.Call.Fun).(*ast.FuncLit); ok {
					deferred[lit] = true
				}
			}
		}
		for _, lit := range lits {
			if !deferred[lit] {
				function(lit.Body, "")
				continue
			}
			ast.Inspect(lit.Body, func(x ast.Node) bool {
				switch x := x.(type) {
				case *ast.FuncLit:
					return false
				case *ast.CallExpr:
					if id, ok := x.Fun.(*ast.Ident); ok && len(x.Args) == 0 && r.isBuiltin(id, "recover") {
						if slots == nil {
							slots = map[*ast.CallExpr]string{}
						}
						slots[x] = slot
					}
				}
				return true
			})
			function(lit.Body, slot)
		}
	}
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.FuncDecl:
			if x.Body != nil {
				function(x.Body, "")
			}
			return false
		case *ast.FuncLit:
			function(x.Body, "")
			return false
		}
		return true
	})
	return slots
}

// typedArgs converts each untyped constant argument of call to its
// parameter's type (names: import path to name, for the types' text), as
// the call would have, so that the arguments keep their types when they
// are stored in variables; and removes the call's "...", returned as
// spread for the call that the variables are passed to.
func (r *rewriter) typedArgs(call *ast.CallExpr, names map[string]string) (spread string) {
	sig, _ := r.info.Types[call.Fun].Type.Underlying().(*types.Signature)
	for k, a := range call.Args {
		if untyped(r.info.Types[a]) {
			t, _ := typeText(paramType(sig, k), names)
			r.ed.Insert(a.Pos(), t+"(", false)
			r.ed.Insert(a.End(), ")", false)
		}
	}
	if call.Ellipsis.IsValid() {
		r.ed.Replace(call.Ellipsis, call.Ellipsis+token.Pos(len("...")), "")
		return "..."
	}
	return ""
}
