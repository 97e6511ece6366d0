package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Values assigned to fields of interface types: the pass "ifacefields".

// ifaceFields is the pass "ifacefields".
func ifaceFields(r *rewriter, n ast.Node) Visit {
	if x, ok := n.(*ast.AssignStmt); ok {
		r.ifaceFieldAssign(x)
	}
	return Next
}

// ifaceFieldAssign converts the value assigned to a field of an
// interface type of a compiled struct (r.Value = i * 10, r a *ring.Ring)
// to the field's type: yaegi left the function silently at such an
// assignment of a value of a concrete type computed in the statement.
// So is a composite literal assigned to a field of an interface type of
// any struct (s.Logger = prefixLogger{"> "}): yaegi failed with
// "reflect.Set: value of type interp.valueInterface is not assignable".
func (r *rewriter) ifaceFieldAssign(x *ast.AssignStmt) {
	if x.Tok != token.ASSIGN || len(x.Lhs) != len(x.Rhs) {
		return
	}
	for k, lhs := range x.Lhs {
		sel, ok := ast.Unparen(lhs).(*ast.SelectorExpr)
		if !ok {
			continue
		}
		s, ok := r.info.Selections[sel]
		_, lit := ast.Unparen(x.Rhs[k]).(*ast.CompositeLit)
		if !ok || s.Kind() != types.FieldVal || !(lit || compiledStruct(s.Recv())) {
			continue
		}
		ft := s.Obj().Type()
		vt := r.info.TypeOf(x.Rhs[k])
		if !types.IsInterface(ft) || vt == nil || types.IsInterface(vt) {
			continue
		}
		if b, ok := vt.(*types.Basic); ok && b.Kind() == types.UntypedNil {
			continue
		}
		t, ok := typeText(ft, r.names)
		if !ok {
			continue
		}
		r.ed.Insert(x.Rhs[k].Pos(), "("+t+")(", false)
		r.ed.Insert(x.Rhs[k].End(), ")", false)
	}
}

// compiledStruct reports whether t, or what it points to, is a named
// type of a compiled package.
func compiledStruct(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() != "main"
}
