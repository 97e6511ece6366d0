package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// Generic instances made outside the top level of a cell.
//
// yaegi compiles an instance of a generic function where it is first
// called, and an instance first called by a definition at the top level
// of a cell came out wrong: e := Twice(5), with
// func Twice[T ~int](x T) T { r := x; r = r * 2; return r }, gave 0, and
// p := Pair("a", 1) an empty map. The instances that a cell's statements
// call are made first in a function that is never called, as they would
// be in Go code:
//
//	func __gnnlab_inst3() { _ = Twice[int] }
//
// An instance of several type arguments is called there with zero
// values, in a branch that never runs, since yaegi took F[A, B] that is
// not called for an instance of a generic type ("not a generic type"):
//
//	func __gnnlab_inst4() { if false { Pair[string, int](*new(string), *new(int)) } }
//
// rewriter.instances collects them (geninstance.go, genericstd.go).

// Instance is an instance that a call uses: the statement that makes it
// (_ = Twice[int]), and the call's position.
type Instance struct {
	Fun  string // Twice[int]
	Text string
	Pos  token.Pos
}

// useInstance records the instance that a call at pos uses: fun, with its
// ntypes type arguments, of signature sig.
func (r *rewriter) useInstance(fun string, ntypes int, sig types.Type, pos token.Pos) {
	if ntypes == 1 {
		r.instances = append(r.instances, Instance{fun, "_ = " + fun, pos})
		return
	}
	st, ok := sig.(*types.Signature)
	if !ok {
		return
	}
	args := make([]string, st.Params().Len())
	for k := range args {
		t, ok := typeText(st.Params().At(k).Type(), r.names)
		if !ok {
			return
		}
		args[k] = "*new(" + t + ")"
	}
	if st.Variadic() && len(args) > 0 {
		args[len(args)-1] += "..."
	}
	r.instances = append(r.instances, Instance{fun, "if false { " + fun + "(" + strings.Join(args, ", ") + ") }", pos})
}

// typeArgs is the pass "typeargs": calls that the passes before wrote
// out or redirected are left alone.
func typeArgs(r *rewriter, n ast.Node) Visit {
	if x, ok := n.(*ast.CallExpr); ok && r.genericCalls[x] != genericWritten {
		r.instantiate(x)
	}
	return Next
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

func (r *rewriter) markGeneric(x *ast.CallExpr, how int) {
	if r.genericCalls == nil {
		r.genericCalls = map[*ast.CallExpr]int{}
	}
	r.genericCalls[x] = how
}
