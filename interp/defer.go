package interp

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
	"sync"
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

// deferList holds the deferred calls of the running cell.
type deferList struct {
	mu    sync.Mutex
	calls []func()
}

func (d *deferList) push(f func()) {
	d.mu.Lock()
	d.calls = append(d.calls, f)
	d.mu.Unlock()
}

func (d *deferList) take() []func() {
	d.mu.Lock()
	defer d.mu.Unlock()
	c := d.calls
	d.calls = nil
	return c
}

// runDefers runs the cell's deferred calls, last first. err is the
// cell's error; a panic in a deferred call becomes the error when the cell
// had none, as it would end a Go program.
func (s *Session) runDefers(err error) error {
	calls := s.defers.take()
	if e, ok := err.(*Error); ok && e.Name == nameExit {
		return err // os.Exit runs no deferred call
	}
	for k := len(calls) - 1; k >= 0; k-- {
		func() {
			defer func() {
				if r := recover(); r != nil && err == nil {
					msg := mapPositions(fmt.Sprint(r))
					err = &Error{Name: namePanic, Value: msg, Traceback: []string{namePanic + ": " + msg + " (in a deferred call)"}}
				}
			}()
			calls[k]()
		}()
	}
	return err
}

// deferStmt records the rewrite of a defer statement of the cell's top
// level (see above).
func (r *rewriter) deferStmt(st *ast.DeferStmt, names map[string]string) {
	call := st.Call
	if !r.capturable(call, names) {
		// A builtin, a generic function or a conversion: the call runs at
		// the end with its arguments evaluated then.
		r.ed.replace(st.Defer, call.Pos(), helperRT+".Defer(func() { ")
		r.ed.insert(call.End(), " })", false)
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
	r.ed.replace(st.Defer, first.Pos(), helperRT+".Defer(func() func() { "+strings.Join(vars, ", ")+" := "+addr)
	if len(call.Args) == 0 {
		r.ed.replace(first.End(), call.Rparen+1, "; return func() { "+callee+"() } }())")
		return
	}
	r.ed.replace(first.End(), call.Lparen+1, ", ")
	sig, _ := r.info.Types[call.Fun].Type.Underlying().(*types.Signature)
	for k, a := range call.Args {
		if untyped(r.info.Types[a]) {
			t, _ := typeText(paramType(sig, k), names)
			r.ed.insert(a.Pos(), t+"(", false)
			r.ed.insert(a.End(), ")", false)
		}
	}
	spread := ""
	if call.Ellipsis.IsValid() {
		r.ed.replace(call.Ellipsis, call.Ellipsis+token.Pos(len("...")), "")
		spread = "..."
	}
	r.ed.replace(call.Rparen, call.Rparen+1, "; return func() { "+callee+"("+strings.Join(vars[1:], ", ")+spread+") } }())")
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
