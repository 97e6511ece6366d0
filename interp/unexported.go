package interp

import (
	"go/ast"
	"go/token"
	"go/types"
)

// unexportedUse finds the first selector in nodes that names an
// unexported field or method of a compiled package's type (ds.features):
// Go refuses it at compile time, while yaegi accepts it and panics when it
// runs ("reflect.Value.Interface: cannot return value obtained from
// unexported field or method"). It returns that compile error, or nil.
func unexportedUse(fset *token.FileSet, info *types.Info, nodes ...ast.Node) *Error {
	if info == nil {
		return nil
	}
	var found *Error
	for _, n := range nodes {
		ast.Inspect(n, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if found != nil || !ok || sel.Sel.IsExported() || info.Selections[sel] != nil {
				return found == nil
			}
			tv, ok := info.Types[sel.X]
			if !ok || tv.Type == nil || !tv.IsValue() {
				return true
			}
			pkg := compiledPkg(tv.Type)
			if pkg == nil {
				return true
			}
			obj, _, _ := types.LookupFieldOrMethod(tv.Type, true, pkg, sel.Sel.Name)
			if obj == nil {
				return true
			}
			kind := "field"
			if _, isFunc := obj.(*types.Func); isFunc {
				kind = "method"
			}
			pos := fset.Position(sel.Sel.Pos())
			msg := types.ExprString(sel) + " undefined (cannot refer to unexported " + kind + " " + sel.Sel.Name +
				" of " + types.TypeString(tv.Type, func(p *types.Package) string { return p.Name() }) + ")"
			found = &Error{Name: nameCompile, Value: msg, Traceback: []string{cellPos(pos.Line, pos.Column) + ": " + msg}}
			return false
		})
	}
	return found
}

// compiledPkg returns the package of a named type (or pointer to one)
// that is not the session's own.
func compiledPkg(t types.Type) *types.Package {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() == "main" {
		return nil
	}
	return n.Obj().Pkg()
}
